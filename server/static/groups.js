/* mjscan: which group of the hand each detected tile (a box on the photo) belongs to, for the box colours.
 * Pure functions, no DOM: app.js calls them, and tests/server/test_groups_js.py runs them under node.
 *
 * The grouping step tags every tile it used with its group ("concealed", "winning", "meld:N" for
 * hand.melds[N], "flowers"; docs/server.md); a box it did not use (a duplicate, a stray) has no group and
 * is "unmatched" (not in the hand). Only when no box carries a group (a reader without grouping) are the
 * boxes matched to the hand by their codes, claimed (sideways) tiles to melds first. */
"use strict";

(function (global) {
  const GROUP = /^(concealed|winning|flowers|meld:\d+)$/;

  function removeOne(list, code) {
    const i = list.indexOf(code);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  }

  /** True when the detection's boxes carry the grouping's own groups. */
  function tagged(tiles) {
    return (tiles || []).some((t) => typeof t.group === "string" && t.group !== "");
  }

  /** A group name per detected tile: the grouping's own where the boxes carry them, else matched by code. */
  function tileGroups(tiles, hand) {
    tiles = tiles || [];
    if (tagged(tiles)) return tiles.map((t) => (GROUP.test(t.group || "") ? t.group : "unmatched"));
    return matchByCode(tiles, hand);
  }

  function matchByCode(tiles, hand) {
    hand = hand || {};
    const melds = hand.melds || [], flowersIn = hand.flowers || [];
    const standing = (hand.concealed || []).slice();
    const winning = hand.winning_tile || null;
    if (winning) removeOne(standing, winning);
    const pools = melds.map((meld, i) => ({ name: "meld:" + i, codes: meld.concealed
      ? [meld.tiles[0], meld.tiles[0], "back", "back"] : meld.tiles.slice() }));
    const concealed = { name: "concealed", codes: standing };
    const win = { name: "winning", codes: winning ? [winning] : [] };
    const flowers = { name: "flowers", codes: flowersIn.slice() };
    const take = (pool, code) => removeOne(pool.codes, code);
    const out = new Array(tiles.length).fill("unmatched");
    const order = tiles.map((t, i) => i).sort((a, b) => tiles[a].box[0] - tiles[b].box[0]);
    for (const i of order) {           // claimed (sideways) tiles belong to melds
      if (tiles[i].sideways) { const pool = pools.find((p) => take(p, tiles[i].code)); if (pool) out[i] = pool.name; }
    }
    for (const i of order) {
      if (out[i] !== "unmatched" || tiles[i].sideways) continue;
      const code = tiles[i].code;
      const pool = [flowers, concealed].concat(pools, [win]).find((p) => take(p, code));
      out[i] = pool ? pool.name : code === "back" ? "back" : "unmatched";
    }
    return out;
  }

  global.MjGroups = { tileGroups: tileGroups, tagged: tagged };
})(typeof window !== "undefined" ? window : globalThis);
