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
    """A bright reflection, strongest on the glossy tile faces: a lamp's soft spot, or a window's
    rectangle with soft edges. The smooth shape is computed at a quarter of the resolution."""
    h, w = img.shape[:2]
    c = rng.uniform(0.1, 0.9, 2) * (w, h)
    r = rng.uniform(0.05, 0.25) * max(w, h)
    strength = rng.uniform(60, 200)
    aspect = rng.uniform(0.3, 1.0)
    a = rng.uniform(0, np.pi)
    window = rng.random() < 0.5
    x0, y0 = int(max(0, c[0] - 2 * r)), int(max(0, c[1] - 2 * r))
    x1, y1 = int(min(w, c[0] + 2 * r)), int(min(h, c[1] + 2 * r))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return {}
    q = 4
    ys = (np.arange(y0, y1, q, dtype=np.float32) + q / 2 - c[1])[:, None]
    xs = (np.arange(x0, x1, q, dtype=np.float32) + q / 2 - c[0])[None, :]
    u = (xs * np.cos(a) + ys * np.sin(a)) / r
    v = (-xs * np.sin(a) + ys * np.cos(a)) / (r * aspect * (0.6 if window else 1.0))
    blob = np.exp(-((u ** 4 + v ** 4) if window else (u ** 2 + v ** 2)) * 2.0)
    blob8 = cv2.resize(np.clip(blob * strength, 0, 255).astype(np.uint8), (x1 - x0, y1 - y0),
                       interpolation=cv2.INTER_LINEAR)
    gloss = np.where(glossy[y0:y1, x0:x1], np.uint8(255), np.uint8(rng.uniform(0.05, 0.3) * 255))
    add = cv2.multiply(blob8, gloss, scale=1 / 255)
    region = img[y0:y1, x0:x1]
    cv2.add(region, cv2.merge([add] * 3), dst=region)
    return {"center": [round(float(c[0]), 1), round(float(c[1]), 1)], "radius": round(float(r), 1),
            "strength": round(float(strength), 1), "window": bool(window)}


def fingers(rng: np.random.Generator, img: np.ndarray, idbuf: np.ndarray, target: np.ndarray, tile_px: float) -> list:
    """A hand reaching in from outside the photo towards ``target``: a palm and 1-4 fingers, shaded
    round (brighter along their middle, from a distance transform of their outline), with nails and a
    soft shadow. It writes -1 (not a tile) into the id buffer where it covers."""
    h, w = img.shape[:2]
    # the hand comes in over the photo's nearest edge
    gaps = {0.0: target[0], np.pi: w - target[0], np.pi / 2: target[1], -np.pi / 2: h - target[1]}
    a = min(gaps, key=gaps.get) + rng.normal(0, 0.45)
    direction = np.array([np.cos(a), np.sin(a)])  # from the wrist towards the fingertips
    side = np.array([-direction[1], direction[0]])
    width = tile_px * rng.uniform(0.55, 0.8)
    n = int(rng.integers(1, 5))
    skin = np.array(rng.choice([[150, 180, 230], [120, 160, 215], [90, 130, 190], [60, 90, 140], [170, 195, 235]]),
                    float) * rng.uniform(0.85, 1.1)
    tip0 = target + direction * rng.uniform(-0.3, 0.8) * tile_px
    knuckles = tip0 - direction * tile_px * rng.uniform(1.6, 2.6)
    palm_len, palm_w = width * rng.uniform(4, 6), width * (max(n, 3) * 1.15 + 0.6)
    palm_centre = knuckles - direction * palm_len * 0.45
    shapes = []
    for k in range(n):
        off = (k - (n - 1) / 2) * width * 1.1 + rng.normal(0, 0.05) * width
        shorten = tile_px * (0.35 * abs(k - (n - 1) / 2) + rng.uniform(0, 0.3))
        spread = side * off * rng.uniform(1.0, 1.25)
        shapes.append((tip0 + spread - direction * shorten, knuckles + side * off))
    elbow = palm_centre - direction * (w + h)
    pts = [p for pair in shapes for p in pair] + [palm_centre + d * r for d in (side, -side, direction, -direction)
                                                  for r in (palm_w / 2, palm_len / 2)] + [elbow]
    pts = np.array(pts)
    pad = int(width) + 4
    x0, y0 = np.clip(np.floor(pts.min(axis=0)).astype(int) - pad, 0, (w, h))
    x1, y1 = np.clip(np.ceil(pts.max(axis=0)).astype(int) + pad, 0, (w, h))
    if x1 <= x0 or y1 <= y0:
        return []
    off = np.array([x0, y0], float)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.ellipse(mask, (tuple(map(float, palm_centre - off)), (float(palm_len), float(palm_w)),
                       float(np.degrees(a))), 255, -1, cv2.LINE_AA)
    cv2.line(mask, tuple(to_cv(palm_centre, off)), tuple(to_cv(elbow, off)), 255, max(1, int(palm_w * 0.8)),
             cv2.LINE_AA, SHIFT)
    for tip, base in shapes:
        cv2.line(mask, tuple(to_cv(tip, off)), tuple(to_cv(base, off)), 255, max(1, int(width)), cv2.LINE_AA, SHIFT)
    # the shadow first, cast a little away from the light
    shift = (rng.normal(0, 0.15, 2) * tile_px).astype(np.float32)
    shadow = cv2.warpAffine(mask, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), mask.shape[::-1])
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, width * 0.35))
    region = img[y0:y1, x0:x1]
    darken(region, shadow, 0.45)
    # round shading from the distance to the outline
    dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.55 + 0.55 * np.sqrt(np.clip(dist / (width * 0.5), 0, 1))
    colour = skin[None, None, :] * shade[..., None]
    layer = np.clip(colour, 0, 255).astype(np.uint8)
    for tip, _ in shapes:  # nails, a little paler, at the tips
        nail = tip - direction * width * 0.32 - off
        cv2.ellipse(layer, (tuple(map(float, nail)), (float(width * 0.5), float(width * 0.6)), float(np.degrees(a))),
                    np.clip(skin * 1.12 + 20, 0, 255).tolist(), -1, cv2.LINE_AA)
    from datasets.render.tiles import _blend

    _blend(region, layer, cv2.GaussianBlur(mask, (0, 0), 0.7))
    idbuf[y0:y1, x0:x1][mask > 127] = -1
    return [{"tip": [round(float(t[0]), 1), round(float(t[1]), 1)], "width": round(float(width), 1)} for t, _ in shapes]


def defocus(img: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), sigma)


def motion_blur(img: np.ndarray, length: int, angle: float) -> np.ndarray:
    """A straight streak ``length`` px long; long streaks are filtered at a lower resolution."""
    if length > 9:
        h, w = img.shape[:2]
        s = 9 / length
        small = cv2.resize(img, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        return cv2.resize(motion_blur(small, 9, angle), (w, h), interpolation=cv2.INTER_LINEAR)
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1
    M = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    k = cv2.warpAffine(k, M, (length, length))
    k /= max(k.sum(), 1e-6)
    return cv2.filter2D(img, -1, k)


def sensor_noise(rng: np.random.Generator, img: np.ndarray, sigma: float) -> None:
    """Gaussian noise (luminance and some colour), added in place. It is drawn at a lower resolution
    (half, or less for big photos: a phone's denoised grain is not per pixel) from windows of a fixed
    noise bank, as uint8 around 128, scaled up, and added with one saturating cv2.addWeighted."""
    from datasets.render.background import _grain

    h, w = img.shape[:2]
    f = max(2.0, max(h, w) / 1000)
    hh, hw = max(1, round(h / f)), max(1, round(w / f))
    luma = _grain(rng, (hh, hw)) * np.float32(sigma)
    n = np.stack([luma + _grain(rng, (hh, hw)) * np.float32(sigma * 0.5) for _ in range(3)], axis=2)
    n8 = np.clip(n + 128, 0, 255).astype(np.uint8)
    n8 = cv2.resize(n8, (w, h), interpolation=cv2.INTER_LINEAR)
    cv2.addWeighted(img, 1.0, n8, 1.0, -128.0, dst=img)
