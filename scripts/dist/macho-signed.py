#!/usr/bin/env python3
"""Checks that a Mach-O executable carries a valid ad-hoc code signature: an LC_CODE_SIGNATURE
whose CodeDirectory hashes every page of the file up to its code limit (macOS on Apple silicon
refuses to run an arm64 binary without one). A binary built here cannot be run here, so this is
what scripts/dist-check.sh can verify of the macOS builds. Usage: macho-signed.py BINARY; exit 0
and one line when valid, 1 with the reason otherwise."""
import hashlib
import struct
import sys

LC_CODE_SIGNATURE = 0x1D
CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
HASHES = {1: hashlib.sha1, 2: hashlib.sha256}


def check(data: bytes) -> str:
    magic, _cpu, _sub, _type, ncmds, _size, _flags = struct.unpack_from("<IiiIIII", data, 0)
    if magic != 0xFEEDFACF:
        raise ValueError(f"not a 64-bit little-endian Mach-O (magic {magic:#x})")
    off, sig = 32, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == LC_CODE_SIGNATURE:
            sig = struct.unpack_from("<II", data, off + 8)
        off += size
    if sig is None:
        raise ValueError("no LC_CODE_SIGNATURE: not signed")
    base, _length = sig
    smagic, _slen, count = struct.unpack_from(">III", data, base)
    if smagic != CSMAGIC_EMBEDDED_SIGNATURE:
        raise ValueError(f"signature blob magic {smagic:#x}")
    for i in range(count):
        _kind, boff = struct.unpack_from(">II", data, base + 12 + 8 * i)
        cd = base + boff
        if struct.unpack_from(">I", data, cd)[0] != CSMAGIC_CODEDIRECTORY:
            continue
        (_m, _l, _version, _cdflags, hash_off, _ident, _special, ncode, limit, hsize, htype,
         _plat, page_log2) = struct.unpack_from(">IIIIIIIIIBBBB", data, cd)
        page = 1 << page_log2
        if htype not in HASHES:
            raise ValueError(f"unknown hash type {htype}")
        if ncode != (limit + page - 1) // page:
            raise ValueError(f"{ncode} code slots for a code limit of {limit}")
        for slot in range(ncode):
            want = data[cd + hash_off + slot * hsize: cd + hash_off + (slot + 1) * hsize]
            got = HASHES[htype](data[slot * page: min((slot + 1) * page, limit)]).digest()[:hsize]
            if want != got:
                raise ValueError(f"page {slot} does not match its hash: modified after signing")
        return f"code signature valid: {ncode} pages of {page} bytes, hash type {htype}"
    raise ValueError("no CodeDirectory in the signature")


if __name__ == "__main__":
    try:
        print(check(open(sys.argv[1], "rb").read()))
    except (ValueError, struct.error) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
