#!/usr/bin/env python3
"""Checks a screenshot: a PNG of the expected size that is not blank.

  check_png.py FILE.png MIN_BYTES MIN_COLOURS

Decodes the PNG with zlib alone (8-bit RGB or RGBA, non-interlaced, as
Chromium writes them) and counts distinct colours and the rows that are not
all background, so a page that failed to render (white, or an error page
with a few words) fails. No PIL needed.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, min_bytes, min_colours = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    size = len(open(path, "rb").read())
    width, height, bpp, rows = decode(path)
    colours, inked = set(), 0
    background = rows[0][:3]
    for row in rows:
        pixels = {row[x:x + 3] for x in range(0, len(row), bpp)}
        colours |= pixels
        inked += any(p != background for p in pixels)
    print(f"{width}x{height}, {size} bytes, {len(colours)} colours, "
          f"{inked} rows with ink")
    ok = size >= min_bytes and len(colours) >= min_colours and inked >= height // 10
    print("screenshot ok" if ok else "screenshot looks blank")
    sys.exit(0 if ok else 1)


main()
