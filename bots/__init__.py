"""Built-in players. Each is a plugin like any third-party one: it imports only ``arena``'s public API
and is found through the ``tute_arena.bots`` entry point group."""
