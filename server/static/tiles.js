/* mjscan tile pictures: every tile face drawn as SVG from its code ("3m", "7z", "2f", "back").
 * Our own drawing, no images or fonts shipped: numbers and suit pictures, Chinese characters for the
 * honours, flowers and the characters suit (the system's CJK font), and a small corner index (1-9,
 * E S W N) for players who do not read them. */
"use strict";

(function (global) {
  const SVG = "http://www.w3.org/2000/svg";
  const W = 60, H = 80;                       // an upright tile's viewBox
  const BLUE = "#1d4f91", GREEN = "#17773a", RED = "#c0262d", INK = "#1d1d1d";
  const CJK = "'Noto Serif CJK SC','Noto Sans CJK SC','Source Han Serif SC','Songti SC','PingFang SC'," +
              "'Hiragino Mincho ProN','Microsoft YaHei','SimSun',serif";
  const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
  const HONOURS = ["東", "南", "西", "北", "", "發", "中"];
  const HONOUR_INDEX = ["E", "S", "W", "N", "", "", ""];
  const BONUS = ["梅", "蘭", "菊", "竹", "春", "夏", "秋", "冬"];
  const BONUS_COLOURS = [RED, "#7b3fa0", "#c46a00", GREEN, GREEN, RED, "#c46a00", BLUE];
  const SUIT_NAMES = { m: "Characters", p: "Dots", s: "Bamboo" };
  const HONOUR_NAMES = ["East Wind", "South Wind", "West Wind", "North Wind", "White Dragon", "Green Dragon",
                        "Red Dragon"];
  const BONUS_NAMES = ["Plum", "Orchid", "Chrysanthemum", "Bamboo (flower)", "Spring", "Summer", "Autumn", "Winter"];

  const PLAYING = [];
  for (const suit of ["m", "p", "s"]) for (let r = 1; r <= 9; r++) PLAYING.push(r + suit);
  for (let r = 1; r <= 7; r++) PLAYING.push(r + "z");
  const BONUS_CODES = [];
  for (let r = 1; r <= 8; r++) BONUS_CODES.push(r + "f");
  const ALL = PLAYING.concat(BONUS_CODES);

  function index(code) {               // 0..41 as in scorer.tiles (the detector's class order)
    const i = ALL.indexOf(code);
    return i < 0 ? 99 : i;
  }

  function name(code) {
    if (code === "back") return "face-down tile";
    const rank = Number(code[0]), suit = code[1];
    if (SUIT_NAMES[suit]) return rank + " " + SUIT_NAMES[suit];
    if (suit === "z") return HONOUR_NAMES[rank - 1];
    return BONUS_NAMES[rank - 1];
  }

  function el(tag, attrs, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, content, size, fill, extra) {
    const node = el("text", Object.assign({
      x: x, y: y, "font-size": size, fill: fill, "text-anchor": "middle", "dominant-baseline": "central",
      "font-family": CJK, "font-weight": "700"
    }, extra || {}), parent);
    node.textContent = content;
    return node;
  }

  function corner(g, label, fill) {
    if (!label) return;
    text(g, 9.5, 10, label, 11, fill || "#6b6453", { "font-family": "system-ui,sans-serif" });
  }

  function dot(g, x, y, r, colour) {
    el("circle", { cx: x, cy: y, r: r, fill: "none", stroke: colour, "stroke-width": r * 0.32 }, g);
    el("circle", { cx: x, cy: y, r: r * 0.42, fill: colour }, g);
  }

  // Dot patterns: [x, y, colour] on the 60 x 80 face.
  const C3 = [17, 30, 43], R3 = [22, 40, 58];
  function dots(rank) {
    const b = BLUE, g = GREEN, r = RED;
    switch (rank) {
      case 1: return [[30, 40, r, 15]];
      case 2: return [[30, 25, g], [30, 55, b]];
      case 3: return [[17, 22, b], [30, 40, r], [43, 58, g]];
      case 4: return [[19, 27, b], [41, 27, g], [19, 53, g], [41, 53, b]];
      case 5: return [[18, 24, b], [42, 24, g], [30, 40, r], [18, 56, g], [42, 56, b]];
      case 6: return [[19, 20, g], [41, 20, g], [19, 42, r], [41, 42, r], [19, 60, r], [41, 60, r]];
      case 7: return [[19, 19, g], [30, 26, g], [41, 33, g], [19, 48, r], [41, 48, r], [19, 64, r], [41, 64, r]];
      case 8: return [[19, 17, b], [41, 17, b], [19, 32, b], [41, 32, b], [19, 48, b], [41, 48, b], [19, 63, b],
                      [41, 63, b]];
      default: {
        const out = [], colours = [b, r, g];
        R3.forEach((y, i) => C3.forEach((x) => out.push([x, y, colours[i]])));
        return out;
      }
    }
  }

  function stick(g, x, y, h, colour) {
    const w = 6.5;
    el("rect", { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 3, fill: colour }, g);
    el("line", { x1: x - w / 2, x2: x + w / 2, y1: y, y2: y, stroke: "#fbf8ef", "stroke-width": 1.3 }, g);
    el("line", { x1: x, x2: x, y1: y - h / 2 + 2, y2: y + h / 2 - 2, stroke: "#ffffff", "stroke-opacity": 0.35,
                 "stroke-width": 1.2 }, g);
  }

  // Bamboo patterns: [x, y, colour] per stick, and the stick height.
  function sticks(rank) {
    const g = GREEN, r = RED, b = BLUE;
    switch (rank) {
      case 2: return [20, [[30, 27, g], [30, 53, b]]];
      case 3: return [20, [[30, 27, g], [20, 53, b], [40, 53, b]]];
      case 4: return [20, [[20, 27, g], [40, 27, b], [20, 53, b], [40, 53, g]]];
      case 5: return [18, [[18, 25, g], [42, 25, b], [30, 40, r], [18, 55, b], [42, 55, g]]];
      case 6: return [20, [[17, 27, g], [30, 27, g], [43, 27, g], [17, 53, b], [30, 53, b], [43, 53, b]]];
      case 7: return [15, [[30, 17, r], [17, 40, g], [30, 40, g], [43, 40, g], [17, 62, g], [30, 62, g], [43, 62, g]]];
      case 8: return [18, [[14, 28, g], [25, 24, g], [35, 24, g], [46, 28, g], [14, 54, b], [25, 58, b], [35, 58, b],
                           [46, 54, b]]];
      default: {
        const out = [];
        R3.forEach((y) => C3.forEach((x, i) => out.push([x, y, i === 1 ? r : (y === 40 ? b : g)])));
        return [15, out];
      }
    }
  }

  function bird(g) {                  // 1 bamboo: a small green bird on a stick
    el("path", { d: "M18 54 Q30 30 46 42 Q38 52 18 54 Z", fill: GREEN }, g);              // body
    el("circle", { cx: 44, cy: 30, r: 7, fill: GREEN }, g);                               // head
    el("path", { d: "M50 29 L57 32 L50 34 Z", fill: "#c46a00" }, g);                      // beak
    el("circle", { cx: 45.5, cy: 28.5, r: 1.6, fill: "#fbf8ef" }, g);                     // eye
    el("path", { d: "M20 52 Q8 60 10 70 Q18 62 26 56 Z", fill: RED }, g);                 // tail
    el("path", { d: "M26 46 Q32 40 40 44", fill: "none", stroke: "#fbf8ef", "stroke-width": 1.4 }, g);
    el("line", { x1: 30, y1: 52, x2: 30, y2: 66, stroke: "#6b4a2b", "stroke-width": 2 }, g);
  }

  function face(g, code) {
    const rank = Number(code[0]), suit = code[1];
    if (suit === "m") {
      text(g, 30, 25, NUMERALS[rank - 1], 25, BLUE);
      text(g, 30, 57, "萬", 27, RED);
      corner(g, String(rank));
    } else if (suit === "p") {
      const big = rank === 1;
      for (const d of dots(rank)) dot(g, d[0], d[1], d[3] || (rank >= 7 ? 6.3 : big ? 15 : 8), d[2]);
      corner(g, String(rank));
    } else if (suit === "s") {
      if (rank === 1) bird(g);
      else {
        const pattern = sticks(rank);
        for (const s of pattern[1]) stick(g, s[0], s[1], pattern[0], s[2]);
      }
      corner(g, String(rank));
    } else if (suit === "z") {
      if (rank === 5) {               // White: a blue frame
        el("rect", { x: 12, y: 14, width: 36, height: 52, rx: 3, fill: "none", stroke: BLUE, "stroke-width": 3.5 }, g);
        el("rect", { x: 18, y: 20, width: 24, height: 40, rx: 2, fill: "none", stroke: BLUE, "stroke-width": 1.5 }, g);
      } else {
        const colour = rank === 6 ? GREEN : rank === 7 ? RED : INK;
        text(g, 30, 42, HONOURS[rank - 1], 36, colour);
        corner(g, HONOUR_INDEX[rank - 1]);
      }
    } else if (suit === "f") {
      const colour = BONUS_COLOURS[rank - 1];
      text(g, 30, 44, BONUS[rank - 1], 32, colour);
      corner(g, String(((rank - 1) % 4) + 1), rank <= 4 ? RED : BLUE);
      el("circle", { cx: 50, cy: 10, r: 3.2, fill: colour }, g);
    }
  }

  /** An <svg> picture of one tile. options: {sideways: rotated 90 degrees, title: accessible name}. */
  function draw(code, options) {
    options = options || {};
    const sideways = !!options.sideways;
    const svg = el("svg", {
      viewBox: sideways ? "0 0 " + (H + 4) + " " + (W + 4) : "0 0 " + (W + 4) + " " + (H + 4),
      class: "tile-svg" + (sideways ? " sideways" : "") + (code === "back" ? " back" : ""),
      "aria-hidden": "true", focusable: "false"
    });
    const g = el("g", sideways ? { transform: "translate(0," + (W + 2) + ") rotate(-90)" } : {}, svg);
    // the tile's depth (a darker edge below), then its face
    el("rect", { x: 1, y: 3, width: W, height: H, rx: 7, fill: code === "back" ? "#1f5a3e" : "#d3c7a6" }, g);
    el("rect", { x: 0.5, y: 0.5, width: W, height: H - 1, rx: 7,
                 fill: code === "back" ? "#2f7d5b" : "#fbf8ef", stroke: "#9d937a", "stroke-width": 1 }, g);
    if (code === "back") {
      el("rect", { x: 7, y: 7, width: W - 14, height: H - 16, rx: 4, fill: "none", stroke: "#8fc7a8",
                   "stroke-width": 1.5 }, g);
    } else {
      face(g, code);
    }
    return svg;
  }

  global.MjTiles = { draw: draw, name: name, index: index, PLAYING: PLAYING, BONUS: BONUS_CODES, ALL: ALL };
})(window);
