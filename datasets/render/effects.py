"""Light and finish: shadows, colour of the light, glare, fingers, blur, noise, vignetting, JPEG.

Whole-photo operations run on uint8 images through cv2 (saturating arithmetic) or on small maps that
are scaled up, to keep a 1280-pixel photo within a few milliseconds per effect.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.render.camera import SHIFT, to_cv


def darken(img: np.ndarray, mask: np.ndarray, strength: float) -> None:
    """img *= 1 - strength * mask/255, in place (mask: uint8 at any resolution)."""
    h, w = img.shape[:2]
    if mask.shape[:2] != (h, w):
        mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    factor = 255 - (mask.astype(np.uint16) * int(strength * 256) >> 8).astype(np.uint8)
    cv2.multiply(img, cv2.merge([factor] * 3), dst=img, scale=1 / 255)


def light_map(rng: np.random.Generator, w: int, h: int, low_light: bool) -> tuple[np.ndarray, dict]:
    """A multiplier (uint8, 128 = 1.0) for colour temperature, uneven light and vignetting."""
    sw, sh = 48, max(2, round(48 * h / w))
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx = xx / (sw - 1) * 2 - 1
    yy = yy / (sh - 1) * 2 - 1
    a = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0, 0.25) * (np.cos(a) * xx + np.sin(a) * yy)
    vig_strength = rng.uniform(0.0, 0.45) if rng.random() < 0.7 else 0.0
    vig = 1 - vig_strength * np.clip((xx ** 2 + yy ** 2) / 2, 0, 1) ** 1.3
    temp = rng.normal(0, 0.08)  # >0 warm, <0 cool
    tint = np.array([1 - temp, 1 + 0.1 * rng.normal(0, 0.05), 1 + temp])  # B, G, R
    exposure = rng.uniform(0.3, 0.6) if low_light else rng.uniform(0.85, 1.15)
    m = (grad * vig * exposure)[..., None] * tint[None, None]
    m8 = np.clip(m * 128, 0, 255).astype(np.uint8)
    return cv2.resize(m8, (w, h), interpolation=cv2.INTER_LINEAR), {
        "temperature": round(float(temp), 3), "exposure": round(float(exposure), 3),
        "vignette": round(float(vig_strength), 3)}


def apply_light(img: np.ndarray, m8: np.ndarray) -> None:
    cv2.multiply(img, m8, dst=img, scale=1 / 128)


def glare(rng: np.random.Generator, img: np.ndarray, glossy: np.ndarray) -> dict:
    """A soft bright spot (a lamp or a window reflected), strongest on the glossy tile faces."""
    h, w = img.shape[:2]
    c = rng.uniform(0.1, 0.9, 2) * (w, h)
    r = rng.uniform(0.05, 0.25) * max(w, h)
    strength = rng.uniform(60, 200)
    x0, y0 = int(max(0, c[0] - 2 * r)), int(max(0, c[1] - 2 * r))
    x1, y1 = int(min(w, c[0] + 2 * r)), int(min(h, c[1] + 2 * r))
    if x1 <= x0 or y1 <= y0:
        return {}
    ys, xs = np.ogrid[y0:y1, x0:x1]
    aspect = rng.uniform(0.3, 1.0)
    blob = np.exp(-(((xs - c[0]) / r) ** 2 + ((ys - c[1]) / (r * aspect)) ** 2) * 2.0)
    gloss = np.where(glossy[y0:y1, x0:x1], 1.0, rng.uniform(0.1, 0.4)).astype(np.float32)
    add = (blob * gloss * strength).astype(np.uint8)
    region = img[y0:y1, x0:x1]
    cv2.add(region, cv2.merge([add] * 3), dst=region)
    return {"center": [round(float(c[0]), 1), round(float(c[1]), 1)], "radius": round(float(r), 1),
            "strength": round(float(strength), 1)}


def fingers(rng: np.random.Generator, img: np.ndarray, idbuf: np.ndarray, target: np.ndarray, tile_px: float) -> list:
    """A hand reaching in from the photo's edge towards ``target``: 1-4 fingers over the tiles there.
    Each finger is a capsule shaded like a cylinder with a nail, with a soft shadow; it writes -1 (not a
    tile) into the id buffer where it covers."""
    h, w = img.shape[:2]
    a = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(a), np.sin(a)])
    width = tile_px * rng.uniform(0.5, 0.75)
    n = int(rng.integers(1, 5))
    skin = np.array(rng.choice([[150, 180, 230], [120, 160, 215], [90, 130, 190], [60, 90, 140], [170, 195, 235]]),
                    float) * rng.uniform(0.85, 1.1)
    side = np.array([-direction[1], direction[0]])
    reach = np.hypot(w, h)
    tip0 = target + direction * rng.uniform(-0.5, 1.0) * tile_px
    out = []
    shadow = np.zeros((h, w), np.uint8)
    shapes = []
    for k in range(n):
        off = (k - (n - 1) / 2) * width * 1.05
        length = tile_px * rng.uniform(0.9, 2.2) * (1 - 0.15 * abs(k - (n - 1) / 2))
        tip = tip0 + side * off - direction * (tile_px * 2.2 - length)
        base = tip - direction * reach
        shapes.append((tip, base))
        cv2.line(shadow, tuple(to_cv(tip + (6, 8))), tuple(to_cv(base + (6, 8))), 255, int(width), cv2.LINE_AA, SHIFT)
        out.append({"tip": [round(float(tip[0]), 1), round(float(tip[1]), 1)], "width": round(float(width), 1)})
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, width * 0.3))
    darken(img, shadow, 0.45)
    for tip, base in shapes:
        for frac, bright in ((1.0, 0.7), (0.75, 0.88), (0.45, 1.0), (0.18, 1.1)):
            th = max(1, int(width * frac))
            centre_shift = side * width * 0.08 * (1 - frac)
            col = np.clip(skin * bright, 0, 255).tolist()
            cv2.line(img, tuple(to_cv(tip + centre_shift)), tuple(to_cv(base + centre_shift)), col, th, cv2.LINE_AA,
                     SHIFT)
        cv2.line(idbuf, tuple(to_cv(tip)), tuple(to_cv(base)), -1, int(width), cv2.LINE_8, SHIFT)
        nail = tip - direction * width * 0.3
        cv2.ellipse(img, (tuple(map(float, nail)), (width * 0.55, width * 0.6), 0.0),
                    np.clip(skin * 1.15 + 15, 0, 255).tolist(), -1, cv2.LINE_AA)
    return out


def defocus(img: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), sigma)


def motion_blur(img: np.ndarray, length: int, angle: float) -> np.ndarray:
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1
    M = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    k = cv2.warpAffine(k, M, (length, length))
    k /= max(k.sum(), 1e-6)
    return cv2.filter2D(img, -1, k)


def sensor_noise(rng: np.random.Generator, img: np.ndarray, sigma: float) -> None:
    """Gaussian noise (luminance and some colour), added in place; generated at half resolution and
    scaled up like a phone's denoised grain."""
    h, w = img.shape[:2]
    hh, hw = (h + 1) // 2, (w + 1) // 2
    n = rng.standard_normal((hh, hw, 3), dtype=np.float32) * (sigma * 0.5)
    n += rng.standard_normal((hh, hw, 1), dtype=np.float32) * sigma
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_LINEAR)
    cv2.add(img, n, dst=img, dtype=cv2.CV_8U)
