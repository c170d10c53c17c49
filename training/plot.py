"""A line plot written as PNG with the standard library only (zlib, struct).

line_plot({"train loss": [(step, value), ...], ...}, "loss.png") draws each
series as a coloured polyline on a white canvas with axes, tick marks at the
data's extremes, and a legend of coloured squares in series order (the
series' names are in the run's loss.csv). The y range is the data's, padded
by 5%; a flat series is drawn at mid-height.
"""
import struct
import zlib

COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189)]
WIDTH, HEIGHT, MARGIN = 640, 400, 40


def _png(pixels, width, height):
    raw = b"".join(b"\x00" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def line_plot(series, path):
    pixels = bytearray(b"\xff" * (WIDTH * HEIGHT * 3))

    def put(x, y, colour):
        if 0 <= x < WIDTH and 0 <= y < HEIGHT:
            i = (y * WIDTH + x) * 3
            pixels[i:i + 3] = bytes(colour)

    def line(x0, y0, x1, y1, colour, thick=1):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in range(steps + 1):
            x = round(x0 + (x1 - x0) * i / steps)
            y = round(y0 + (y1 - y0) * i / steps)
            for dx in range(thick):
                for dy in range(thick):
                    put(x + dx, y + dy, colour)

    black = (0, 0, 0)
    left, right, top, bottom = MARGIN, WIDTH - MARGIN // 2, MARGIN // 2, HEIGHT - MARGIN
    line(left, bottom, right, bottom, black)
    line(left, top, left, bottom, black)
    points = [p for values in series.values() for p in values]
    if points:
        xs = [float(x) for x, _ in points]
        ys = [float(y) for _, y in points]
        x_lo, x_hi = min(xs), max(xs)
        y_lo, y_hi = min(ys), max(ys)
        pad = (y_hi - y_lo) * 0.05 or 1.0
        y_lo, y_hi = y_lo - pad, y_hi + pad

        def at(x, y):
            px = left + (right - left) * ((float(x) - x_lo) / (x_hi - x_lo) if x_hi > x_lo else 0.5)
            py = bottom - (bottom - top) * (float(y) - y_lo) / (y_hi - y_lo)
            return round(px), round(py)

        for tick in (left, right):
            line(tick, bottom, tick, bottom + 5, black)
        for tick in (top, bottom):
            line(left - 5, tick, left, tick, black)
        for index, values in enumerate(series.values()):
            colour = COLOURS[index % len(COLOURS)]
            placed = [at(x, y) for x, y in values]
            for (x0, y0), (x1, y1) in zip(placed, placed[1:]):
                line(x0, y0, x1, y1, colour, thick=2)
            for x, y in placed:
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        put(x + dx, y + dy, colour)
            for dx in range(10):
                for dy in range(10):
                    put(right - 20 + dx, top + 4 + 14 * index + dy, colour)
    with open(path, "wb") as f:
        f.write(_png(pixels, WIDTH, HEIGHT))
