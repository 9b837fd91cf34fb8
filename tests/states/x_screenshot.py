"""Screenshot of the whole X display (the Xvfb screen) as a PNG, through libX11 (ctypes)
and zlib: ParaView's screenshots show views only, and the GUI's Python has no Qt binding
to grab a panel. grab(path) returns the (width, height) written."""
import ctypes
import ctypes.util
import os
import struct
import zlib


class _XImage(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte)),
                ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
                ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int),
                ("bits_per_pixel", ctypes.c_int), ("red_mask", ctypes.c_ulong),
                ("green_mask", ctypes.c_ulong), ("blue_mask", ctypes.c_ulong)]


def grab(path):
    x = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x.XDefaultRootWindow.restype = ctypes.c_ulong
    x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x.XGetImage.restype = ctypes.POINTER(_XImage)
    x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                            ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
    x.XGetGeometry.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_void_p] * 7
    x.XCloseDisplay.argtypes = [ctypes.c_void_p]
    x.XFree.argtypes = [ctypes.c_void_p]
    display = x.XOpenDisplay(os.environ.get("DISPLAY", "").encode())
    if not display:
        raise RuntimeError("cannot open the X display")
    root = x.XDefaultRootWindow(display)
    geometry = [ctypes.c_ulong(), ctypes.c_int(), ctypes.c_int(), ctypes.c_uint(),
                ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()]
    x.XGetGeometry(display, root, *[ctypes.byref(g) for g in geometry])
    width, height = geometry[3].value, geometry[4].value
    image = x.XGetImage(display, root, 0, 0, width, height, 0xFFFFFFFF, 2)  # ZPixmap
    if not image:
        raise RuntimeError("XGetImage failed")
    im = image.contents
    if im.bits_per_pixel != 32:
        raise RuntimeError("unsupported X visual: %d bits per pixel" % im.bits_per_pixel)
    raw = ctypes.string_at(im.data, im.bytes_per_line * height)
    rows = []
    for y in range(height):
        line = raw[y * im.bytes_per_line:y * im.bytes_per_line + 4 * width]
        rgb = bytearray(3 * width)
        rgb[0::3], rgb[1::3], rgb[2::3] = line[2::4], line[1::4], line[0::4]  # BGRX
        rows.append(b"\0" + bytes(rgb))  # filter type 0 per row
    x.XFree(ctypes.cast(im.data, ctypes.c_void_p))
    x.XFree(ctypes.cast(image, ctypes.c_void_p))
    x.XCloseDisplay(display)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    with open(path, "wb") as f:
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
                chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))
    return width, height
