#!/usr/bin/env python3
# Writes the seed corpora of fuzz_decode, fuzz_bstr, fuzz_roundtrip and
# fuzz_dense into
# fuzz/corpus/<target>/ (fuzz_tracefile's seeds are real trace files, made
# otherwise).  Deterministic: running it again rewrites the same files.
# The seeds only start the fuzzer off; what it finds later stays out of the
# repository unless a crash is fixed, when the input goes in as a seed.
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

FORMATS = [
    b"This is the timer interrupt: %llu",
    b"%s:%d %08x %-10s|%5.2f",
    b"%p", b"%s", b"softirq: nothing pending, back to idle",
    b"%*.*d|%-*d", b"%-+ #0*.*lld", b"%1$d %2$s", b"%", b"abc%", b"%5", b"%.",
    b"%hhd %hd %ld %lld %jd %zd %td", b"%hhu %hx %lo %llX %jx %zu %tu",
    b"%Lf %Le %Lg %La", b"%a %A %e %E %f %F %g %G", b"%n|%hhn|%lln",
    b"%%|%5%|%-5%", b"%*%", b"%.*s|%.3s|%.0s", b"%ls %lc %y %m %Z %q",
    b"%Ld %Lx %hf %hp %lp", b"%'d %Id", b"%c%c%c", b"%#o %#x %#X %#.0o",
    b"%2147483647d", b"%.2147483647e", b"%99999999999999999999d", b"%*.*Lf",
    b"%pS %ps %pF", b"\x01\x7f\xff%s\xc3\xa9", b"%-0+ #*.*hhi",
    b"%.*%", b"%*.*s%*.*c", b"%010.4f|% .3e|%+g",
]


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def i32(v):
    return struct.pack("<i", v)


def u64(v):
    return struct.pack("<Q", v & (2**64 - 1))


def f64(v):
    return struct.pack("<d", v)


def s(b):
    b += b"\0"
    return b + b"\0" * (-len(b) % 4)


def ld(v):
    # an x87 80-bit value, from a double's fields, in 12 bytes
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    sign, exp, frac = bits >> 63, (bits >> 52) & 0x7ff, bits & (2**52 - 1)
    if exp == 0:
        return b"\0" * 12
    mant = (1 << 63) | (frac << 11)
    return struct.pack("<QH", mant, (sign << 15) | (exp - 1023 + 16383)) + b"\0\0"


def bstr_seed(fmt, block):
    assert len(fmt) < 256
    return bytes([len(fmt)]) + fmt + block


BSTR = [
    (b"This is the timer interrupt: %llu", u64(4294967296 + 42)),
    (b"%s:%d %08x %-10s|%5.2f", s(b"irq") + i32(-4711) + i32(0xbeef) + s(b"eth0") + f64(3.14159)),
    (b"%p", u64(0x7ffd1234abcd)), (b"%p", u64(0)),
    (b"%s", s(b"x" * 200)), (b"%s", b"unterminated"), (b"%s%s", s(b"a")),
    (b"%d %d", i32(1)), (b"%lld", i32(1)), (b"%*d", i32(-20) + i32(5)),
    (b"%.*s", i32(3) + s(b"abcdef")), (b"%*.*f", i32(2147483647) + i32(-1) + f64(1.5)),
    (b"%.*e", i32(2147483647) + f64(2.5)), (b"%*Lf", i32(100000) + ld(1e300)),
    (b"%La %Lg", ld(-0.1) + ld(12345.678)), (b"%f %e %g %a", f64(1e-300) * 4),
    (b"%c%c%c%c", b"ab\0c"), (b"%c|%5c|%-5c", b"xyz\0"), (b"%hhd %hd", i32(300) + i32(70000)),
    (b"%n%s", s(b"after n")), (b"%pS %ps", u64(0x401000) + u64(0)),
    (b"%1$d", i32(5)), (b"%*%|%d", i32(7) + i32(8)), (b"%s", b""),
    (b"%zu %td %jd", u64(-1) + u64(-2) + u64(2**63)), (b"%d", b"\x01\x02\x03"),
]


def ring_page(seq, records):
    # a ring page (docs/ring-buffer.md): header, then (site, words, delta, payload)
    body = b""
    for site, delta, payload in records:
        words = 2 + len(payload) // 4
        body += struct.pack("<II", words | site << 12, delta) + payload
    return struct.pack("<QQQQII", seq, 1000, 0, 0, len(body), 0) + body


def dense_seeds():
    # byte 0: page size index (bits 0-1), bit 7: a page to encode
    seed = [(5, 12 * i, u64(100 + i)) for i in range(12)]
    mixed = [(1 + i % 3, 7 * i, i32(i) + s(b"eth%d" % (i % 2))) for i in range(10)]
    extend = [(0, 0, u64(2**33)), (5, 3, u64(1)), (5, 9, u64(2))]
    pages = [ring_page(1, seed), ring_page(2, mixed), ring_page(3, []), ring_page(4, extend),
             ring_page(5, [(9, 1, b"")] * 20)]
    for i, pg in enumerate(pages):
        write("fuzz_dense", "page-%02d" % i, bytes([0x80 | 2]) + pg)
    # entries: an empty page, a raw page, the seed's records (tag, time, words)
    hdr = struct.pack("<QQQQII", 7, 0, 0, 0, 0, 0)
    write("fuzz_dense", "entry-00", bytes([0]) + hdr + struct.pack("<I", 0))
    raw = struct.pack("<II", 4 | 5 << 12, 3) + u64(1)
    write("fuzz_dense", "entry-01", bytes([0]) + struct.pack("<QQQQII", 8, 0, 0, 0, 16, 0) +
          struct.pack("<I", 16 | 2**31) + raw)
    recs = bytes([0x88, 0xc0, 0x02, 0x00, 0x02, 0x00]) + bytes([0, 2, 2, 0]) * 3
    write("fuzz_dense", "entry-02", bytes([0]) + struct.pack("<QQQQII", 9, 0, 0, 0, 64, 0) +
          struct.pack("<I", len(recs)) + recs)


def main():
    for i, fmt in enumerate(FORMATS):
        write("fuzz_decode", "fmt-%02d" % i, fmt)
    for i, (fmt, block) in enumerate(BSTR):
        write("fuzz_bstr", "block-%02d" % i, bstr_seed(fmt, block))
    # fuzz_roundtrip reads its input as the generator's random bytes
    rng = random.Random(20260901)
    for i in range(32):
        n = rng.choice([8, 16, 32, 64, 128, 256])
        write("fuzz_roundtrip", "call-%02d" % i, bytes(rng.randrange(256) for _ in range(n)))
    dense_seeds()


if __name__ == "__main__":
    main()
