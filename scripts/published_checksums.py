#!/usr/bin/env python3
"""The checksums the project publishes for table files (tables/reference/published-checksums.tsv):
the CRC-32 (zlib's) of the whole file with the header checksum field, bytes 252..256, read as
zeros. Prints `name<TAB>crc` for each FILE given, ready to merge into the TSV (kept sorted).

Usage: scripts/published_checksums.py FILE...
"""
import os
import sys
import zlib


def published_checksum(path):
    with open(path, "rb") as f:
        head = bytearray(f.read(256))
        head[252:256] = b"\0\0\0\0"
        crc = zlib.crc32(head)
        while block := f.read(1 << 22):
            crc = zlib.crc32(block, crc)
    return crc


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    for path in sys.argv[1:]:
        print(f"{os.path.basename(path)}\t{published_checksum(path):08x}")
