#!/usr/bin/env python3
"""Prints the polynomial coefficients of backends/llvm/VectorMath.cpp.

Each is a near-minimax fit (mpmath's Chebyshev fit, in 60-digit arithmetic) of the part of a
function left after the terms VectorMath computes exactly, on the reduced range it is used on,
rounded to the element type. Run it to regenerate the tables (and to see each fit's error
relative to the function it contributes to):
    python3 scripts/vecmath_coefficients.py
"""
import struct

import mpmath as mp

mp.mp.dps = 60

LN2_HALF = mp.log(2) / 2
S_MAX = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)  # |s| for m in [sqrt(1/2), sqrt(2)]
TANH_SMALL = mp.mpf("0.625")                 # tanh's polynomial range, |x| below it


def exp_q(r):  # exp(r) = 1 + r + r^2 Q(r)
    return (mp.exp(r) - 1 - r) / r**2 if r else mp.mpf(1) / 2


def log_r(z):  # log((1+s)/(1-s)) = 2s + s^3 R(s^2)
    s = mp.sqrt(z)
    if not z:
        return mp.mpf(2) / 3
    return (2 * mp.atanh(s) - 2 * s) / s**3


def tanh_t(z):  # tanh(x) = x + x^3 T(x^2)
    x = mp.sqrt(z)
    if not z:
        return -mp.mpf(1) / 3
    return (mp.tanh(x) - x) / x**3


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


FITS = [
    # name, function, interval, degree, weight: what one unit of the fit's error is worth in the
    # final result, relative (exp: r^2 / e^r; log: s^3 / 2s; tanh: x^3 / x)
    ("exp", exp_q, [-LN2_HALF, LN2_HALF], LN2_HALF**2),
    ("log", log_r, [mp.mpf(0), S_MAX**2], S_MAX**2 / 2),
    ("tanh", tanh_t, [mp.mpf(0), TANH_SMALL**2], TANH_SMALL**2),
]
DEGREES = {"f32": {"exp": 4, "log": 2, "tanh": 5}, "f64": {"exp": 10, "log": 7, "tanh": 11}}


def main():
    for ty, degrees in DEGREES.items():
        for name, fn, interval, weight in FITS:
            coeffs, err = mp.chebyfit(fn, interval, degrees[name] + 1, error=True)
            coeffs = list(reversed(coeffs))  # lowest degree first
            if ty == "f32":
                text = ", ".join(float(f32(c)).hex() for c in coeffs)
            else:
                text = ", ".join(float(c).hex() for c in coeffs)
            ulp = mp.mpf(2) ** (-23 if ty == "f32" else -52)
            print(f"// {name} {ty}: fit error {mp.nstr(err * weight / ulp, 3)} ulp")
            print(f"{name}_{ty} = {{{text}}};")


if __name__ == "__main__":
    main()
