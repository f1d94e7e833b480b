"""The stored record column, packed: zlib with a preset dictionary, a version byte in front.

A record is about 2 kB of JSON whose keys, option lists and card names repeat from one game to the
next. Deflate over a 4 kB window primed with two sample records (``_ZDICT_1``, a frozen constant: a
packed record can only ever be unpacked with the dictionary it was packed with, so a new dictionary
takes a new version byte) makes it about 360 bytes in about 25 us, in the worker that played it.
Rows written before packing hold the JSON text itself (SQLite TEXT); ``unpack`` reads both, and
``tute export`` writes the same bytes from either.
"""

from __future__ import annotations

import base64
import zlib

#: the first byte of a packed record: which dictionary and window it was packed with
VERSION_1 = 1
_WBITS = 12
_LEVEL = 3
_ZDICT_1 = base64.b64decode(
    "YXkgN28iXSxbMiwicGxheSAxMGUiXSxbMywicGxheSAxYiJdLFswLCJwbGF5IDZlIl0sWzEsInBsYXkgN2IiXSxbMiwicGxheSA0"
    "byJdLFszLCJwbGF5IDVjIl0sWzAsInBsYXkgMmUiXSxbMSwicGxheSAyYyJdXSwicmVzdWx0Ijp7InBvaW50cyI6WzI1LDE2LDU4"
    "LDMxXSwicmFua3MiOlswLDEsMCwxXSwid2lubmVyIjpbMCwyXSwidHV0ZSI6bnVsbCwiZm9yZmVpdCI6bnVsbCwicmVhc29uIjoi"
    "cG9pbnRzIn19eyJmb3JtYXQiOiJ0dXRlLWFyZW5hLzEiLCJpZCI6ImJ1aWx0aW4vdHV0ZS00L3IxL3QwL2QxMDAvczAiLCJ2YXJp"
    "YW50IjoidHV0ZS00Iiwib3B0aW9ucyI6eyJwbGF5ZXJzIjo0LCJwYWlycyI6ZmFsc2UsImRyYXdfcGlsZSI6ZmFsc2UsImhhbmRf"
    "c2l6ZSI6MTAsInRocmVlX3BsYXllcl9kZWNrIjozNiwiZm9sbG93X3RydW1wX2xlYWRfaW5fc3RvY2siOmZhbHNlLCJtdXN0X2Jl"
    "YXRfbGVkX2FmdGVyX3RydW1wZWQiOmZhbHNlLCJ1bmRlcnRydW1wX3JlcXVpcmVkIjpmYWxzZSwicGFydG5lcl9leGVtcHRpb24i"
    "OmZhbHNlLCJleGNoYW5nZV9zZXZlbiI6dHJ1ZSwiZXhjaGFuZ2VfdHdvIjp0cnVlLCJmb3J0eV9maXJzdCI6dHJ1ZSwiY2FudGVz"
    "X3Njb3BlIjoicGxheWVyIiwiY2FudGVzX2FmdGVyX3N0b2NrIjp0cnVlLCJ0dXRlX21vZGUiOiJhbnlfd29uX3RyaWNrIiwidHV0"
    "ZV9mcm9tX2RlYWwiOnRydWUsImxhc3RfdHJpY2tfYm9udXMiOjEwLCJ0cnVtcF9ydWxlIjoiY2FyZCIsImZvbGxvd19vbmx5Ijpm"
    "YWxzZSwiY2FudGVzIjp0cnVlLCJzY29yaW5nIjoicG9pbnRzIiwiYmlkX21pbiI6NjAsImJpZF9zdGVwIjo1LCJiaWRfbWF4Ijoy"
    "MzAsIm5vX3RyaWNrX2xvc2VzIjp0cnVlLCJvdmVyX3BvaW50c19sb3NlcyI6MCwiY2Fwb3RlX2FmdGVyX2NhbnRlX2xvc2VzIjpm"
    "YWxzZSwic2l0X291dF9mcm9tIjowfSwic2VlZCI6MTAwLCJkZWFsZXIiOjAsInNlYXRzIjpbInNlYXJjaCIsImdyZWVkeSIsInJh"
    "bmRvbSIsIngiXSwidGVhbXMiOltbMF0sWzFdLFsyXSxbM11dLCJkZWNrIjpbIjZiIiwiMW8iLCIzYyIsIjVlIiwiMTFjIiwiMTFl"
    "IiwiNmMiLCIxMmMiLCI3YiIsIjdlIiwiMWIiLCI1YiIsIjRjIiwiN2MiLCIxMGIiLCI1byIsIjZvIiwiNGIiLCIxMmIiLCIyYiIs"
    "IjFjIiwiN28iLCIxZSIsIjJlIiwiMm8iLCIxMW8iLCI1YyIsIjRlIiwiM28iLCI0byIsIjEwYyIsIjEwbyIsIjNiIiwiMTBlIiwi"
    "M2UiLCI2ZSIsIjJjIiwiMTFiIiwiMTJlIiwiMTJvIl0sImhhbmRzIjpbWyI1byIsIjEwbyIsIjEybyIsIjEyYyIsIjJlIiwiNGUi"
    "LCI1ZSIsIjZlIiwiMmIiLCI1YiJdLFsiMm8iLCIzbyIsIjZvIiwiMWMiLCIyYyIsIjRjIiwiMTFjIiwiM2IiLCI2YiIsIjdiIl0s"
    "WyIxbyIsIjRvIiwiN28iLCIxMW8iLCI3YyIsIjdlIiwiMTBlIiwiMTFlIiwiNGIiLCIxMWIiXSxbIjNjIiwiNWMiLCI2YyIsIjEw"
    "YyIsIjFlIiwiM2UiLCIxMmUiLCIxYiIsIjEwYiIsIjEyYiJdXSwic3RvY2siOltdLCJ0cnVtcF9jYXJkIjoiMTJvIiwiYWN0aW9u"
    "cyI6W1sxLCJwbGF5IDJvIl0sWzIsInBsYXkgMTFvIl0sWzMsInBsYXkgMWUiXSxbMCwicGxheSAxMm8iXSxbMCwicGxheSAxMG8i"
    "XSxbMSwicGxheSAzbyJdLFsyLCJwbGF5IDFvIl0sWzMsInBsYXkgM2MiXSxbMiwicGxheSA3ZSJdLFszLCJwbGF5IDEyZSJdLFsw"
    "LCJwbGF5IDVlIl0sWzEsInBsYXkgNm8iXSxbMSwicGxheSA2YiJdLFsyLCJwbGF5IDExYiJdLFszLCJwbGF5IDEyYiJdLFswLCJw"
    "bGF5IDViIl0sWzMsInBsYXkgMTBiIl0sWzAsInBsYXkgMmIiXSxbMSwicGxheSAzYiJdLFsyLCJwbGF5IDRiIl0sWzEsInBsYXkg"
    "MTFjIl0sWzIsInBsYXkgN2MiXSxbMywicGxheSA2YyJdLFswLCJwbGF5IDEyYyJdLFswLCJwbGF5IDRlIl0sWzEsInBsYXkgMWMi"
    "XSxbMiwicGxheSAxMWUiXSxbMywicGxheSAzZSJdLFszLCJwbGF5IDEwYyJdLFswLCJwbGF5IDVvIl0sWzEsInBsYXkgNGMiXSxb"
    "MiwicGxheSA3byJdLFsyLCJwbGF5IDEwZSJdLFszLCJwbGF5IDFiIl0sWzAsInBsYXkgNmUiXSxbMSwicGxheSA3YiJdLFsyLCJw"
    "bGF5IDRvIl0sWzMsInBsYXkgNWMiXSxbMCwicGxheSAyZSJdLFsxLCJwbGF5IDJjIl1dLCJyZXN1bHQiOnsicG9pbnRzIjpbMjUs"
    "MTYsNTgsMzFdLCJyYW5rcyI6WzIsMywwLDFdLCJ3aW5uZXIiOlsyXSwidHV0ZSI6bnVsbCwiZm9yZmVpdCI6bnVsbCwicmVhc29u"
    "IjoicG9pbnRzIn19eyJmb3JtYXQiOiJ0dXRlLWFyZW5hLzEiLCJpZCI6ImJ1aWx0aW4vdHV0ZS0yL3IxL3QwL2QxMDAvczAiLCJ2"
    "YXJpYW50IjoidHV0ZS0yIiwib3B0aW9ucyI6eyJwbGF5ZXJzIjoyLCJwYWlycyI6ZmFsc2UsImRyYXdfcGlsZSI6dHJ1ZSwiaGFu"
    "ZF9zaXplIjo2LCJ0aHJlZV9wbGF5ZXJfZGVjayI6MzYsImZvbGxvd190cnVtcF9sZWFkX2luX3N0b2NrIjpmYWxzZSwibXVzdF9i"
    "ZWF0X2xlZF9hZnRlcl90cnVtcGVkIjpmYWxzZSwidW5kZXJ0cnVtcF9yZXF1aXJlZCI6ZmFsc2UsInBhcnRuZXJfZXhlbXB0aW9u"
    "IjpmYWxzZSwiZXhjaGFuZ2Vfc2V2ZW4iOnRydWUsImV4Y2hhbmdlX3R3byI6dHJ1ZSwiZm9ydHlfZmlyc3QiOnRydWUsImNhbnRl"
    "c19zY29wZSI6InBsYXllciIsImNhbnRlc19hZnRlcl9zdG9jayI6dHJ1ZSwidHV0ZV9tb2RlIjoiYW55X3dvbl90cmljayIsInR1"
    "dGVfZnJvbV9kZWFsIjp0cnVlLCJsYXN0X3RyaWNrX2JvbnVzIjoxMCwidHJ1bXBfcnVsZSI6ImNhcmQiLCJmb2xsb3dfb25seSI6"
    "ZmFsc2UsImNhbnRlcyI6dHJ1ZSwic2NvcmluZyI6InBvaW50cyIsImJpZF9taW4iOjYwLCJiaWRfc3RlcCI6NSwiYmlkX21heCI6"
    "MjMwLCJub190cmlja19sb3NlcyI6dHJ1ZSwib3Zlcl9wb2ludHNfbG9zZXMiOjAsImNhcG90ZV9hZnRlcl9jYW50ZV9sb3NlcyI6"
    "ZmFsc2UsInNpdF9vdXRfZnJvbSI6MH0sInNlZWQiOjEwMCwiZGVhbGVyIjowLCJzZWF0cyI6WyJzZWFyY2giLCJncmVlZHkiXSwi"
    "dGVhbXMiOltbMF0sWzFdXSwiZGVjayI6WyI2YiIsIjFvIiwiM2MiLCI1ZSIsIjExYyIsIjExZSIsIjZjIiwiMTJjIiwiN2IiLCI3"
    "ZSIsIjFiIiwiNWIiLCI0YyIsIjdjIiwiMTBiIiwiNW8iLCI2byIsIjRiIiwiMTJiIiwiMmIiLCIxYyIsIjdvIiwiMWUiLCIyZSIs"
    "IjJvIiwiMTFvIiwiNWMiLCI0ZSIsIjNvIiwiNG8iLCIxMGMiLCIxMG8iLCIzYiIsIjEwZSIsIjNlIiwiNmUiLCIyYyIsIjExYiIs"
    "IjEyZSIsIjEybyJdLCJoYW5kcyI6W1siMW8iLCIxMmMiLCI1ZSIsIjdlIiwiMTFlIiwiNWIiXSxbIjNjIiwiNmMiLCIxMWMiLCIx"
    "YiIsIjZiIiwiN2IiXV0sInN0b2NrIjpbIjdjIiwiMTBiIiwiNW8iLCI2byIsIjRiIiwiMTJiIiwiMmIiLCIxYyIsIjdvIiwiMWUi"
    "LCIyZSIsIjJvIiwiMTFvIiwiNWMiLCI0ZSIsIjNvIiwiNG8iLCIxMGMiLCIxMG8iLCIzYiIsIjEwZSIsIjNlIiwiNmUiLCIyYyIs"
    "IjExYiIsIjEyZSIsIjEybyJdLCJ0cnVtcF9jYXJkIjoiNGMiLCJhY3Rpb25zIjpbWzEsInBsYXkgM2MiXSxbMCwicGxheSAxbyJd"
    "LFsxLCJwbGF5IDdiIl0sWzAsInBsYXkgN2UiXSxbMSwicGxheSAxMWMiXSxbMCwicGxheSAxMGIiXSxbMSwicGxheSA1byJdLFsw"
    "LCJwbGF5IDViIl0sWzEsInBsYXkgNGIiXSxbMCwicGxheSA1ZSJdLFsxLCJwbGF5IDJiIl0sWzAsInBsYXkgMTJjIl0sWzAsInBs"
    "YXkgMmUiXSxbMSwicGxheSA2YyJdLFsxLCJwbGF5IDdjIl0sWzAsInBsYXkgMTJiIl0sWzEsInBsYXkgN28iXSxbMCwicGxheSAx"
    "MWUiXSxbMSwicGxheSAxMW8iXSxbMCwicGxheSAxYyJdLFswLCJwbGF5IDEwYyJdLFsxLCJwbGF5IDZiIl0sWzAsInBsYXkgMTBl"
    "Il0sWzEsInBsYXkgM2IiXSxbMCwicGxheSA2ZSJdLFsxLCJwbGF5IDFiIl0sWzAsInBsYXkgMTBvIl0sWzEsInBsYXkgNG8iXSxb"
    "MCwicGxheSA2byJdLFsxLCJwbGF5IDJvIl0sWzAsInBsYXkgMWUiXSxbMSwicGxheSA0ZSJdLFswLCJwbGF5IDNvIl0sWzEsInBs"
    "YXkgNGMiXSxbMSwicGxheSAzZSJdLFswLCJwbGF5IDVjIl0sWzAsInBsYXkgMTJvIl0sWzEsInBsYXkgMmMiXSxbMSwicGxheSAx"
    "MmUiXSxbMCwicGxheSAxMWIiXV0sInJlc3VsdCI6eyJwb2ludHMiOls2Niw2NF0sInJhbmtzIjpbMCwxXSwid2lubmVyIjpbMF0s"
    "InR1dGUiOm51bGwsImZvcmZlaXQiOm51bGwsInJlYXNvbiI6InBvaW50cyJ9fQ=="
)


def pack(text: str) -> bytes:
    """The record's JSON text as the store keeps it."""
    c = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, 8, zlib.Z_DEFAULT_STRATEGY, _ZDICT_1)
    return bytes((VERSION_1,)) + c.compress(text.encode("utf-8")) + c.flush()


def unpack(value: str | bytes) -> str:
    """The record's JSON text from a stored value: packed bytes, or the text of an older row. A value
    that cannot be unpacked is a ValueError (a damaged row; readers name it and go on)."""
    if isinstance(value, str):
        return value
    if not value or value[0] != VERSION_1:
        raise ValueError(f"stored record: unknown packing {value[:1]!r}")
    try:
        d = zlib.decompressobj(_WBITS, _ZDICT_1)
        return (d.decompress(value[1:]) + d.flush()).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"stored record: cannot unpack ({exc})") from None
