/* mjscan's page: upload a photo or enter a hand, edit it, and see it scored at once.
 * Plain JS, no libraries. Everything goes through the JSON API: /api/rules, /api/scan, /api/score,
 * /api/waits. The hand lives here as the spec's hand JSON; every edit re-scores it. */
"use strict";

(function () {
  const T = window.MjTiles;
  const G = window.MjGroups;
  const $ = (id) => document.getElementById(id);
  const HAS_DETECTOR = document.body.dataset.detector === "true";
  const MAX_UPLOAD = Number(document.body.dataset.maxUpload) || 0;
  const FLAG_KEYS = ["self_drawn", "last_of_kind", "last_tile", "kong_replacement", "robbing_kong", "dealer",
                     "first_turn"];
  const WIND_KEYS = ["seat_wind", "prevalent_wind"];
  const WINDS = [["E", "East"], ["S", "South"], ["W", "West"], ["N", "North"]];
  // The four context fields the page always shows, whatever the rule set; the rule set's own keys follow.
  const COMMON = [
    { key: "seat_wind", type: "wind", default: "E", label: "Seat wind", description: "The winner's seat." },
    { key: "prevalent_wind", type: "wind", default: "E", label: "Prevalent wind", description: "The round's wind." },
    { key: "self_drawn", type: "flag", default: false, label: "Self-drawn",
      description: "The winning tile was drawn from the wall, not claimed from a discard." },
    { key: "last_tile", type: "flag", default: false, label: "Last tile",
      description: "Won on the wall's last tile or the game's last discard." },
  ];
  const EXAMPLE = "123m 5s [4'56m] [7'89m] (7777z) 15f +5s | seat=N";
  const GROUP_COLOURS = { concealed: "#1e88e5", winning: "#f9a825", flowers: "#d81b60", unmatched: "#9e9e9e",
                          back: "#6d4c41" };
  const MELD_COLOURS = ["#43a047", "#8e24aa", "#00897b", "#f4511e"];

  const state = {
    rules: $("rules-select").value || document.body.dataset.defaultRules || "mcr",
    rulesList: [],
    hand: emptyHand(),
    detection: null,
    readHand: null,        // the hand as read from the photo (the detection's groups name its melds)
    photo: null,           // an object URL for the uploaded photo, or null
    questions: [],
    answerSeq: 0,          // the latest answers sent to /api/answer (a slower earlier reply is dropped)
    weighSeq: 0,           // the latest weighing of the questions after a change of rules (the same)
    scoreSeq: 0,
    notationSeq: 0,
  };

  function emptyHand() {
    return { concealed: [], melds: [], winning_tile: null, flowers: [], context: {} };
  }

  // ------------------------------------------------------------------------------------------------
  // Small helpers

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const key in attrs || {}) {
      const value = attrs[key];
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  const byIndex = (a, b) => T.index(a) - T.index(b);
  const isBonus = (code) => code[1] === "f";
  const rankOf = (code) => Number(code[0]);
  const suitOf = (code) => code[1];

  function handSize(hand) {
    return hand.concealed.length + 3 * hand.melds.length;
  }

  function isEmpty(hand) {
    return !hand.concealed.length && !hand.melds.length && !hand.flowers.length;
  }

  function copiesOf(hand, code) {
    let n = hand.concealed.filter((c) => c === code).length;
    for (const meld of hand.melds) n += meld.tiles.filter((c) => c === code).length;
    return n;
  }

  function removeOne(list, code) {
    const i = list.indexOf(code);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  }

  /** Keep the hand tidy after an edit: sorted tiles, a winning tile that is in the hand. */
  function normalise(hand) {
    hand.concealed.sort(byIndex);
    hand.flowers.sort(byIndex);
    if (hand.winning_tile && !hand.concealed.includes(hand.winning_tile)) hand.winning_tile = null;
    return hand;
  }

  function split(hand) {           // the standing tiles without the winning tile, and the winning tile
    const standing = hand.concealed.slice().sort(byIndex);
    if (hand.winning_tile) removeOne(standing, hand.winning_tile);
    return { standing: standing, winning: hand.winning_tile };
  }

  function ruleSet() {
    return state.rulesList.find((r) => r.name === state.rules) || { name: state.rules, title: state.rules, context_keys: [] };
  }

  function contextKeys() {          // the fields shown: the common four, then the rule set's own
    const seen = new Set(COMMON.map((k) => k.key));
    return COMMON.concat(ruleSet().context_keys.filter((k) => !seen.has(k.key)));
  }

  function defaultOf(key) {
    const found = contextKeys().find((k) => k.key === key);
    if (found) return found.default;
    if (FLAG_KEYS.includes(key)) return false;
    if (WIND_KEYS.includes(key)) return "E";
    return undefined;
  }

  function humanise(key) {
    const bare = key.replace(new RegExp("^" + state.rules + "_"), "").replace(/_/g, " ");
    return bare.charAt(0).toUpperCase() + bare.slice(1);
  }

  async function api(path, payload) {
    let response;
    try {
      response = await fetch(path, payload === undefined ? {} : {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
      });
    } catch (err) {
      return { ok: false, status: 0, data: { error: { code: "network", message:
        "Could not reach the mjscan server. Check the connection and try again." } } };
    }
    return { ok: response.ok, status: response.status, data: await readJSON(response) };
  }

  async function readJSON(response) {
    try {
      return await response.json();
    } catch (err) {
      return { error: { code: "http_" + response.status, message: httpMessage(response.status) } };
    }
  }

  function httpMessage(status) {
    if (status === 413) return "The photo is too large to upload. Send a smaller copy.";
    if (status >= 500) return "The server could not answer (" + status + "). Try again in a moment.";
    return "The server refused the request (" + status + ").";
  }

  // ------------------------------------------------------------------------------------------------
  // The notation, written here from the hand (the server reads it back: /api/score with "notation")

  function formatGroup(codes) {
    const out = [];
    let suit = null, digits = "";
    for (const code of codes.slice().sort(byIndex)) {
      if (suit !== null && suitOf(code) !== suit) { out.push(digits + suit); digits = ""; }
      suit = suitOf(code);
      digits += code[0];
    }
    if (suit !== null) out.push(digits + suit);
    return out.join(" ");
  }

  function formatMeld(meld) {
    const tiles = meld.tiles.slice().sort(byIndex);
    const suit = suitOf(tiles[0]);
    const ranks = tiles.map((c) => c[0]);
    if (meld.concealed) return "(" + ranks.join("") + suit + ")";
    if (meld.claimed && meld.claimed_tile) {
      removeOne(ranks, meld.claimed_tile[0]);
      const at = meld.claimed === "left" ? 0 : meld.claimed === "across" ? 1 : ranks.length;
      ranks.splice(at, 0, meld.claimed_tile[0] + "'");
    }
    return "[" + ranks.join("") + suit + "]";
  }

  function formatContext(context) {
    const words = FLAG_KEYS.filter((k) => context[k] === true);
    if (context.seat_wind && context.seat_wind !== "E") words.push("seat=" + context.seat_wind);
    if (context.prevalent_wind && context.prevalent_wind !== "E") words.push("prevalent=" + context.prevalent_wind);
    for (const key of Object.keys(context).sort()) {
      if (FLAG_KEYS.includes(key) || WIND_KEYS.includes(key)) continue;
      const value = context[key];
      if (value === defaultOf(key)) continue;
      words.push(value === true ? key : key + "=" + String(value));
    }
    return words.join(" ");
  }

  function formatHand(hand) {
    const { standing, winning } = split(hand);
    const parts = [];
    if (standing.length) parts.push(formatGroup(standing));
    for (const meld of hand.melds) parts.push(formatMeld(meld));
    if (hand.flowers.length) parts.push(formatGroup(hand.flowers));
    if (winning) parts.push("+" + winning);
    const context = formatContext(hand.context || {});
    return parts.join(" ") + (context ? " | " + context : "");
  }

  // ------------------------------------------------------------------------------------------------
  // The hand strip

  function meldLayout(meld) {        // the tiles as they lie: [{code, sideways}]
    const tiles = meld.tiles.slice().sort(byIndex);
    if (meld.concealed) {
      return [{ code: "back" }, { code: tiles[1] }, { code: tiles[2] }, { code: "back" }];
    }
    const laid = tiles.map((c) => ({ code: c, sideways: false }));
    if (meld.claimed && meld.claimed_tile && tiles.includes(meld.claimed_tile)) {
      laid.splice(laid.findIndex((t) => t.code === meld.claimed_tile), 1);
      const at = meld.claimed === "left" ? 0 : meld.claimed === "across" ? 1 : laid.length;
      laid.splice(at, 0, { code: meld.claimed_tile, sideways: true });
    }
    return laid;
  }

  function meldCaption(meld) {
    if (meld.concealed) return "concealed " + meld.kind;
    return meld.kind + (meld.claimed ? ", from " + meld.claimed : "");
  }

  function tileButton(code, label, onClick, extra) {
    const button = h("button", { type: "button", class: "tile" + (extra && extra.cls ? " " + extra.cls : "") +
                                                 (extra && extra.sideways ? " sideways" : ""),
                                 "data-code": code, "aria-label": label, title: T.name(code), onclick: onClick });
    button.append(T.draw(code, { sideways: extra && extra.sideways }));
    return button;
  }

  function group(label, caption, cls, buttons) {
    return h("div", { class: "group " + (cls || ""), role: "group", "aria-label": label },
             h("div", { class: "tiles" }, ...buttons), h("span", { class: "caption", text: caption }));
  }

  function renderHand() {
    const hand = state.hand;
    const strip = $("hand-strip");
    strip.replaceChildren();
    const { standing, winning } = split(hand);
    if (isEmpty(hand)) {
      strip.append(h("p", { class: "hint empty", text: "No tiles yet: take a photo, tap \u201cAdd tile\u201d, " +
        "or type the hand in the notation box." }));
    }
    if (standing.length) {
      strip.append(group("Standing tiles", "standing", "standing", standing.map((code) =>
        tileButton(code, T.name(code) + ", standing tile: change", () => openConcealed(code, false)))));
    }
    if (winning) {
      strip.append(group("Winning tile", "winning tile", "winning", [
        tileButton(winning, T.name(winning) + ", the winning tile: change", () => openConcealed(winning, true),
                   { cls: "win" })]));
    }
    hand.melds.forEach((meld, i) => {
      const caption = meldCaption(meld);
      strip.append(group("Meld " + (i + 1) + ": " + caption, caption, "meld", meldLayout(meld).map((t) =>
        tileButton(t.code, (t.code === "back" ? "Face-down tile" : T.name(t.code)) + (t.sideways ? ", claimed" : "") +
                   ", in meld " + (i + 1) + ": change the meld", () => openMeld(i), { sideways: t.sideways })),
      ));
    });
    if (hand.flowers.length) {
      strip.append(group("Flowers and seasons", "flowers", "flowers", hand.flowers.map((code) =>
        tileButton(code, T.name(code) + ", flower or season: change", () => openFlower(code)))));
    }
    const size = handSize(hand);
    $("tile-count").textContent = isEmpty(hand) ? "" : size + " tiles" + (hand.melds.some((m) => m.kind === "kong")
      ? " (a kong counts as 3)" : "") + (size === 14 ? "" : size === 13 ? ": a hand still in play; its waits are shown"
      : size < 13 ? ": add " + (14 - size) : ": remove " + (size - 14));
    renderWinningSelect();
  }

  function renderWinningSelect() {
    const select = $("winning-select");
    select.replaceChildren(h("option", { value: "", text: "None yet (the hand is still in play)" }));
    for (const code of [...new Set(state.hand.concealed)].sort(byIndex)) {
      select.append(h("option", { value: code, text: code + " \u2013 " + T.name(code) }));
    }
    select.value = state.hand.winning_tile || "";
  }

  // ------------------------------------------------------------------------------------------------
  // Editing: the tile dialog with its palette

  const dialog = $("tile-dialog");

  function openDialog(title, hint, actions, palette) {
    $("dialog-title").textContent = title;
    $("dialog-hint").textContent = hint || "";
    $("dialog-actions").replaceChildren(...(actions || []));
    renderPalette(palette);
    if (!dialog.open) {
      if (dialog.showModal) dialog.showModal(); else dialog.setAttribute("open", "");
    }
  }

  function closeDialog() {
    if (dialog.open) { if (dialog.close) dialog.close(); else dialog.removeAttribute("open"); }
  }

  $("dialog-close").addEventListener("click", closeDialog);
  dialog.addEventListener("click", (event) => { if (event.target === dialog) closeDialog(); });

  function renderPalette(options) {
    const palette = $("palette");
    palette.replaceChildren();
    if (!options) { palette.hidden = true; return; }
    palette.hidden = false;
    for (const code of T.ALL) {
      const allowed = options.allow ? options.allow(code) : true;
      const button = h("button", { type: "button", class: "tile pick", "data-code": code, "aria-label": T.name(code),
                                   title: T.name(code), disabled: !allowed,
                                   onclick: () => { options.pick(code); if (!options.keepOpen) closeDialog(); } });
      button.append(T.draw(code));
      palette.append(button);
    }
  }

  function edited() {
    normalise(state.hand);
    renderHand();
    renderPhoto();
    $("notation").value = formatHand(state.hand);
    setNotationError(null);
    scheduleScore();
  }

  function canAdd(code) {
    return isBonus(code) ? !state.hand.flowers.includes(code) : copiesOf(state.hand, code) < 4;
  }

  function openConcealed(code, isWinning) {
    const hand = state.hand;
    const actions = [
      h("button", { type: "button", class: "button danger", onclick: () => {
        removeOne(hand.concealed, code);
        if (isWinning) hand.winning_tile = null;
        closeDialog(); edited();
      } }, "Remove this tile"),
    ];
    if (!isWinning) {
      actions.push(h("button", { type: "button", class: "button", onclick: () => {
        hand.winning_tile = code; closeDialog(); edited();
      } }, "Make it the winning tile"));
    } else {
      actions.push(h("button", { type: "button", class: "button", onclick: () => {
        hand.winning_tile = null; closeDialog(); edited();
      } }, "Not the winning tile"));
    }
    openDialog("Change " + T.name(code) + (isWinning ? " (the winning tile)" : ""),
               "Or pick the tile to put in its place:", actions, {
      allow: (c) => c === code || canAdd(c),
      pick: (c) => {
        if (c === code) return;
        removeOne(hand.concealed, code);
        if (isBonus(c)) {
          if (!hand.flowers.includes(c)) hand.flowers.push(c);
          if (isWinning) hand.winning_tile = null;
        } else {
          hand.concealed.push(c);
          if (isWinning) hand.winning_tile = c;
        }
        edited();
      },
    });
  }

  function openFlower(code) {
    const hand = state.hand;
    openDialog("Change " + T.name(code), "Or pick another flower or season:", [
      h("button", { type: "button", class: "button danger", onclick: () => {
        removeOne(hand.flowers, code); closeDialog(); edited();
      } }, "Remove it"),
    ], {
      allow: (c) => isBonus(c) && (c === code || !hand.flowers.includes(c)),
      pick: (c) => { removeOne(hand.flowers, code); hand.flowers.push(c); edited(); },
    });
  }

  function openAddTiles() {
    const hand = state.hand;
    const palette = {
      keepOpen: true,
      allow: canAdd,
      pick: (c) => {
        if (!canAdd(c)) return;
        if (isBonus(c)) hand.flowers.push(c);
        else {
          hand.concealed.push(c);
          if (!hand.winning_tile && handSize(hand) === 14) hand.winning_tile = c;
        }
        edited();
        renderPalette(palette);      // tiles held four times can no longer be added
      },
    };
    openDialog("Add tiles", "Tap tiles to add them (flowers and seasons go with the flowers). The 14th tile " +
               "becomes the winning tile.", [], palette);
  }

  function chowStart(code) {            // the lowest tile of a chow through code
    return Math.min(rankOf(code), 7) + suitOf(code);
  }

  function meldTiles(kind, code) {
    if (kind === "chow") {
      const low = rankOf(chowStart(code)), suit = suitOf(code);
      return [low, low + 1, low + 2].map((r) => r + suit);
    }
    return Array(kind === "kong" ? 4 : 3).fill(code);
  }

  function openAddMeld() {
    const kind = h("select", { id: "new-meld-kind" },
                   h("option", { value: "pung", text: "Pung (three alike)" }),
                   h("option", { value: "chow", text: "Chow (a run of three)" }),
                   h("option", { value: "kong", text: "Kong (four alike)" }));
    const from = h("select", { id: "new-meld-from" },
                   h("option", { value: "left", text: "the left player" }),
                   h("option", { value: "across", text: "across" }),
                   h("option", { value: "right", text: "the right player" }),
                   h("option", { value: "concealed", text: "nobody: a concealed kong" }));
    const refresh = () => renderPalette(palette);
    kind.addEventListener("change", refresh);
    const palette = {
      allow: (c) => !isBonus(c) && (kind.value !== "chow" || suitOf(c) !== "z"),
      pick: (c) => {
        const k = from.value === "concealed" ? "kong" : kind.value;
        const tiles = meldTiles(k, c);
        const meld = { kind: k, tiles: tiles, concealed: from.value === "concealed" };
        if (!meld.concealed) {
          meld.claimed = k === "chow" ? "left" : from.value;
          meld.claimed_tile = k === "chow" ? c : tiles[0];
          if (k === "chow" && !tiles.includes(c)) meld.claimed_tile = tiles[0];
        }
        state.hand.melds.push(meld);
        edited();
      },
    };
    openDialog("Add a meld", "Pick the meld's tile: for a chow, the claimed tile (a chow is claimed from the left).",
               [h("div", { class: "field inline" }, h("label", { for: "new-meld-kind", text: "Kind" }), kind),
                h("div", { class: "field inline" }, h("label", { for: "new-meld-from", text: "Claimed from" }), from)],
               palette);
  }

  function openMeld(i) {
    const hand = state.hand;
    const meld = hand.melds[i];
    if (!meld) return;
    const kind = h("select", { id: "meld-kind" },
                   ...["chow", "pung", "kong"].map((k) => h("option", { value: k, text: k,
                     disabled: k === "chow" && suitOf(meld.tiles[0]) === "z" })));
    kind.value = meld.kind;
    const concealed = h("input", { type: "checkbox", id: "meld-concealed", disabled: meld.kind !== "kong" });
    concealed.checked = !!meld.concealed;
    const from = h("select", { id: "meld-from", disabled: meld.concealed },
                   h("option", { value: "", text: "not recorded" }),
                   ...["left", "across", "right"].map((d) => h("option", { value: d, text: d,
                     disabled: meld.kind === "chow" && d !== "left" })));
    from.value = meld.concealed ? "" : (meld.claimed || "");
    const claimedTile = h("select", { id: "meld-claimed-tile", disabled: meld.kind !== "chow" || !meld.claimed },
                          ...meld.tiles.slice().sort(byIndex).map((c) => h("option", { value: c, text: T.name(c) })));
    claimedTile.value = meld.claimed_tile || meld.tiles[0];

    const apply = () => { edited(); openMeld(i); };
    kind.addEventListener("change", () => {
      const k = kind.value;
      const base = meld.kind === "chow" ? meld.tiles.slice().sort(byIndex)[0] : meld.tiles[0];
      meld.kind = k;
      meld.tiles = meldTiles(k, base);
      if (k !== "kong") meld.concealed = false;
      if (k === "chow" && meld.claimed && meld.claimed !== "left") meld.claimed = "left";
      if (meld.claimed_tile && !meld.tiles.includes(meld.claimed_tile)) meld.claimed_tile = meld.tiles[0];
      apply();
    });
    concealed.addEventListener("change", () => {
      meld.concealed = concealed.checked;
      if (meld.concealed) { delete meld.claimed; delete meld.claimed_tile; }
      apply();
    });
    from.addEventListener("change", () => {
      if (from.value) {
        meld.claimed = from.value;
        if (!meld.claimed_tile || !meld.tiles.includes(meld.claimed_tile)) meld.claimed_tile = meld.tiles[0];
      } else { delete meld.claimed; delete meld.claimed_tile; }
      apply();
    });
    claimedTile.addEventListener("change", () => { meld.claimed_tile = claimedTile.value; apply(); });

    const actions = [
      h("div", { class: "field inline" }, h("label", { for: "meld-kind", text: "Kind" }), kind),
      h("div", { class: "field inline check" }, concealed, h("label", { for: "meld-concealed", text: "Concealed kong" })),
      h("div", { class: "field inline" }, h("label", { for: "meld-from", text: "Claimed from" }), from),
      h("div", { class: "field inline" }, h("label", { for: "meld-claimed-tile", text: "Claimed tile" }), claimedTile),
      h("button", { type: "button", class: "button danger", onclick: () => {
        hand.melds.splice(i, 1); closeDialog(); edited();
      } }, "Remove this meld"),
    ];
    openDialog("Meld " + (i + 1) + ": " + meldCaption(meld),
               meld.kind === "chow" ? "Or pick another tile for the chow (it runs from there, or ends at 9):"
                                    : "Or pick the tile it is made of:", actions, {
      allow: (c) => !isBonus(c) && (meld.kind !== "chow" || suitOf(c) !== "z"),
      pick: (c) => {
        const position = meld.claimed_tile ? meld.tiles.slice().sort(byIndex).indexOf(meld.claimed_tile) : -1;
        meld.tiles = meldTiles(meld.kind, c);
        if (meld.claimed_tile) meld.claimed_tile = meld.kind === "chow" ? meld.tiles[Math.max(position, 0)] : c;
        edited();
      },
    });
  }

  $("add-tile").addEventListener("click", openAddTiles);
  $("add-meld").addEventListener("click", openAddMeld);
  $("clear").addEventListener("click", () => {
    const context = state.hand.context;
    state.hand = emptyHand();
    state.hand.context = context;
    clearPhoto();
    edited();
  });
  $("example").addEventListener("click", () => { $("notation").value = EXAMPLE; readNotation(); });
  $("winning-select").addEventListener("change", (event) => {
    state.hand.winning_tile = event.target.value || null;
    edited();
  });

  // ------------------------------------------------------------------------------------------------
  // The notation box: typing it replaces the hand (read by the server), editing the hand rewrites it

  let notationTimer = null;
  $("notation").addEventListener("input", () => {
    clearTimeout(notationTimer);
    notationTimer = setTimeout(readNotation, 350);
  });
  $("notation").addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); clearTimeout(notationTimer); readNotation(); }
  });

  function setNotationError(message) {
    const box = $("notation-error");
    box.hidden = !message;
    box.textContent = message || "";
    $("notation").setAttribute("aria-invalid", message ? "true" : "false");
  }

  async function readNotation() {
    const text = $("notation").value.trim();
    if (!text) { setNotationError(null); return; }
    const seq = ++state.notationSeq;
    const reply = await api("/api/score", { rules: state.rules, notation: text });
    if (seq !== state.notationSeq) return;
    if (reply.data && reply.data.hand) {
      state.hand = reply.data.hand;
      setNotationError(null);
      renderHand();
      renderContext();
      renderPhoto();
      showResult(reply.data);
      updateWaits();
    } else {
      setNotationError(errorMessage(reply));
    }
  }

  function errorMessage(reply) {
    const error = reply.data && reply.data.error;
    return error && error.message ? error.message : httpMessage(reply.status);
  }

  // ------------------------------------------------------------------------------------------------
  // The context: the rule set and its keys, generated from /api/rules

  function renderContext() {
    const box = $("context-fields");
    box.replaceChildren();
    const context = state.hand.context || (state.hand.context = {});
    for (const key of contextKeys()) {
      const id = "ctx-" + key.key;
      const value = key.key in context ? context[key.key] : key.default;
      const label = key.label || humanise(key.key);
      const help = h("small", { id: id + "-help", class: "hint", text: key.description });
      let input;
      if (key.type === "flag") {
        input = h("input", { type: "checkbox", id: id, name: key.key, "aria-describedby": id + "-help" });
        input.checked = value === true || value === "true";
        box.append(h("div", { class: "field check" }, input, h("label", { for: id, text: label }), help));
      } else {
        if (key.type === "wind" || key.type === "choice") {
          const options = key.type === "wind" ? WINDS : (key.choices || []).map((c) => [c, c.replace(/_/g, " ")]);
          input = h("select", { id: id, name: key.key, "aria-describedby": id + "-help" },
                    ...options.map((o) => h("option", { value: o[0], text: o[1] })));
        } else {
          input = h("input", { type: "number", id: id, name: key.key, inputmode: "numeric", step: "1", min: "0",
                               "aria-describedby": id + "-help" });
        }
        input.value = String(value);
        box.append(h("div", { class: "field" }, h("label", { for: id, text: label }), input, help));
      }
      input.addEventListener("change", () => {
        let v = key.type === "flag" ? input.checked : key.type === "int" ? parseInt(input.value || "0", 10) : input.value;
        if (key.type === "int" && Number.isNaN(v)) v = 0;
        if (v === key.default) delete context[key.key]; else context[key.key] = v;
        edited();
      });
    }
  }

  $("rules-select").addEventListener("change", (event) => {
    state.rules = event.target.value;
    renderContext();
    edited();
    weighQuestions();
  });

  function scanContext() {            // the context fields sent with a photo
    const fields = {};
    const allowed = new Set(FLAG_KEYS.concat(WIND_KEYS, ruleSet().context_keys.map((k) => k.key)));
    for (const key in state.hand.context || {}) {
      if (allowed.has(key)) fields[key] = String(state.hand.context[key]);
    }
    return fields;
  }

  // ------------------------------------------------------------------------------------------------
  // Scoring

  let scoreTimer = null;
  function scheduleScore() {
    clearTimeout(scoreTimer);
    scoreTimer = setTimeout(scoreNow, 120);
  }

  async function scoreNow() {
    const seq = ++state.scoreSeq;
    if (isEmpty(state.hand)) {
      $("score").replaceChildren(h("p", { class: "hint", text: "Take a photo or enter a hand to see its score." }));
      $("waits").hidden = true;
      return;
    }
    $("score").setAttribute("aria-busy", "true");
    const reply = await api("/api/score", { rules: state.rules, hand: state.hand });
    if (seq !== state.scoreSeq) return;
    $("score").removeAttribute("aria-busy");
    showResult(reply.data && (reply.data.rules || reply.data.error) ? reply.data : { error: { message: errorMessage(reply) } });
    updateWaits();
  }

  function signed(n) {
    return n === null || n === undefined ? "\u2013" : (n > 0 ? "+" : n < 0 ? "\u2212" : "") + Math.abs(n);
  }

  const SETTLEMENT_LABELS = { winner: "Winner", discarder: "Discarder", others: "Each other player",
                              favoured: "East (or the banker)", east: "East", dealer: "Dealer" };

  function showResult(result) {
    const box = $("score");
    box.replaceChildren();
    const title = (state.rulesList.find((r) => r.name === (result.rules || state.rules)) || {}).title;
    if (title) box.append(h("p", { class: "rules-title", text: title }));
    if (result.valid) {
      box.append(h("p", { class: "total", id: "score-total", "data-total": String(result.total) },
                   h("span", { class: "number", text: String(result.total) }), " points"));
    } else {
      const error = result.error || {};
      box.append(h("div", { class: "error-box", id: "score-error", role: "alert", "data-code": error.code || "" },
                    h("strong", { text: "Not a scoring hand yet. " }), error.message || "The hand is not valid."));
      // a photo's question still open is likelier the cause than a tile to remove (a row with no winning tile apart)
      if (state.questions.some((q) => q.answer === undefined && q.changes_score !== false)) {
        box.append(h("p", { class: "hint", id: "score-open-question",
                            text: "The photo leaves a question open: answering it under \u201cQuestions about " +
                                  "the photo\u201d completes the hand." }));
      }
      if (result.items && result.items.length) {
        box.append(h("p", { class: "total invalid", id: "score-total", "data-total": String(result.total) },
                     h("span", { class: "number", text: String(result.total) }), " points (not enough)"));
      }
    }
    const items = result.items || [];
    if (items.length) {
      const doubling = result.base !== undefined || items.some((i) => i.doubles !== undefined);
      const rows = items.map((item) => h("tr", {},
        h("th", { scope: "row", text: item.name }),
        h("td", { class: "num", text: item.points !== undefined ? String(item.points)
                                    : item.doubles + (item.doubles === 1 ? " doubling" : " doublings") }),
        h("td", { class: "num", text: String(item.count) })));
      const foot = [];
      if (result.base !== undefined) foot.push(h("tr", {}, h("th", { scope: "row", text: "Base points" }),
                                                  h("td", { class: "num", colspan: "2", text: String(result.base) })));
      if (result.doubles !== undefined) foot.push(h("tr", {}, h("th", { scope: "row", text: "Doublings" }),
                                                     h("td", { class: "num", colspan: "2", text: String(result.doubles) })));
      foot.push(h("tr", { class: "sum" }, h("th", { scope: "row", text: "Total" }),
                  h("td", { class: "num", colspan: "2", text: String(result.total) })));
      box.append(h("table", { class: "items", id: "score-items" },
        h("caption", { class: "visually-hidden", text: "Scoring items" }),
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: doubling ? "Item" : "Fan" }),
                         h("th", { scope: "col", class: "num", text: doubling ? "Value" : "Points" }),
                         h("th", { scope: "col", class: "num", text: "Count" }))),
        h("tbody", {}, ...rows), h("tfoot", {}, ...foot)));
    }
    const settlement = result.settlement || {};
    const keys = Object.keys(settlement);
    if (keys.length) {
      box.append(h("h3", { text: "Settlement" }), h("table", { class: "settlement", id: "settlement" },
        h("caption", { class: "visually-hidden", text: "Who pays whom (+ receives, \u2212 pays)" }),
        h("tbody", {}, ...keys.map((key) => h("tr", {},
          h("th", { scope: "row", text: SETTLEMENT_LABELS[key] || key }),
          h("td", { class: "num " + (settlement[key] > 0 ? "plus" : settlement[key] < 0 ? "minus" : ""),
                    text: settlement[key] === null ? (key === "discarder" ? "none (self-drawn)" : "none")
                                                   : signed(settlement[key]) }))))));
    }
    if (result.arrangement && result.arrangement.length) {
      box.append(h("h3", { text: "Read as" }), h("div", { class: "arrangement" },
        ...result.arrangement.map((part) => h("span", { class: "part", title: part[0] },
          ...part[1].map((code) => T.draw(code))))));
    }
    if (result.notes && result.notes.length) {
      box.append(h("ul", { class: "notes" }, ...result.notes.map((n) => h("li", { text: n }))));
    }
  }

  async function updateWaits() {
    const box = $("waits");
    const hand = state.hand;
    if (hand.winning_tile || handSize(hand) !== 13) { box.hidden = true; return; }
    const reply = await api("/api/waits", { rules: state.rules, hand: hand });
    if (hand !== state.hand || hand.winning_tile || handSize(hand) !== 13) return;
    box.hidden = false;
    box.replaceChildren(h("h3", { text: "Waits" }));
    if (!reply.ok) {
      box.append(h("p", { class: "error", text: errorMessage(reply) }));
    } else if (reply.data.waits.length) {
      box.append(h("p", { text: "This hand is one tile from mahjong. It waits on:" }),
                 h("div", { class: "wait-tiles", id: "wait-tiles" }, ...reply.data.waits.map((code) =>
                   h("span", { class: "wait", title: T.name(code), "data-code": code }, T.draw(code),
                     h("span", { class: "code", text: code })))));
    } else {
      box.append(h("p", { text: "Not ready: no single tile completes this hand." }));
    }
  }

  // ------------------------------------------------------------------------------------------------
  // The photo: upload, progress, the detected tiles drawn over it

  function clearPhoto() {
    if (state.photo) URL.revokeObjectURL(state.photo);
    state.photo = null;
    state.detection = null;
    state.readHand = null;
    state.questions = [];
    state.answerSeq++;
    state.weighSeq++;
    $("photo-view").hidden = true;
    $("questions-section").hidden = true;
    $("photo-error").hidden = true;
  }

  function showPhotoError(message) {
    $("photo-error").textContent = message;
    $("photo-error").hidden = false;
  }

  function setProgress(text, fraction) {
    const box = $("progress");
    if (!box) return;
    box.hidden = text === null;
    if (text === null) return;
    $("progress-text").textContent = text;
    const bar = $("progress-bar");
    if (fraction === null || fraction === undefined) bar.removeAttribute("value");
    else { bar.max = 1; bar.value = fraction; }
  }

  function uploadPhoto(file) {
    if (!file) return;
    $("photo-error").hidden = true;
    if (MAX_UPLOAD && file.size > MAX_UPLOAD) {
      showPhotoError("This photo is " + (file.size / 1048576).toFixed(1) + " MB; mjscan takes photos up to " +
                     Math.round(MAX_UPLOAD / 1048576) + " MB. Send a smaller copy.");
      return;
    }
    const form = new FormData();
    form.append("photo", file, file.name || "photo");
    form.append("rules", state.rules);
    const fields = scanContext();
    for (const key in fields) form.append(key, fields[key]);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/scan");
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.loaded < event.total) {
        setProgress("Uploading the photo\u2026 " + Math.round(100 * event.loaded / event.total) + "%",
                    event.loaded / event.total);
      } else setProgress("Reading the tiles\u2026", null);
    });
    xhr.upload.addEventListener("load", () => setProgress("Reading the tiles\u2026", null));
    xhr.addEventListener("load", () => {
      setProgress(null);
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (err) { data = null; }
      if (xhr.status !== 200 || !data || !data.detection) {
        const error = data && data.error;
        showPhotoError(error && error.message ? error.message : httpMessage(xhr.status));
        return;
      }
      scanned(file, data);
    });
    xhr.addEventListener("error", () => {
      setProgress(null);
      showPhotoError("Could not reach the mjscan server. Check the connection and try again.");
    });
    setProgress("Uploading the photo\u2026", null);
    xhr.send(form);
  }

  function scanned(file, data) {
    if (state.photo) URL.revokeObjectURL(state.photo);
    state.photo = URL.createObjectURL(file);
    state.detection = data.detection;
    state.readHand = data.hand ? JSON.parse(JSON.stringify(data.hand)) : null;  // what the photo's groups name
    state.questions = data.questions || [];
    state.answerSeq++;
    state.weighSeq++;
    $("questions-note").textContent = "";
    state.photoNote = "";
    // what the reader says of its reading (e.g. a tile read again to make a winning hand): shown, never silent
    const readingNotes = (data.reading_notes || []).filter((n) => typeof n === "string");
    if (data.hand) {
      state.hand = data.hand;
      state.hand.melds = state.hand.melds || [];
      state.hand.flowers = state.hand.flowers || [];
      state.hand.context = state.hand.context || {};
    } else if (!(data.detection.tiles || []).some((t) => t.code !== "back")) {
      state.photoNote = "No tiles were found in this photo. Check the layout guide below and try again, or " +
                        "enter the hand by hand.";
    } else {             // tiles found but not grouped: start from the detected tiles
      const context = state.hand.context;
      state.hand = emptyHand();
      state.hand.context = context;
      const tiles = data.detection.tiles || [];
      const tagged = G.tagged(tiles);  // the grouping's tags: leave out the boxes it did not use (duplicates)
      for (const tile of tiles) {
        if (tile.code === "back" || (tagged && !tile.group)) continue;
        if (isBonus(tile.code)) { if (!state.hand.flowers.includes(tile.code)) state.hand.flowers.push(tile.code); }
        else {
          state.hand.concealed.push(tile.code);
          if (tile.group === "winning") state.hand.winning_tile = tile.code;
        }
      }
      state.photoNote = state.questions.length
        ? "The photo leaves " + (state.questions.length === 1 ? "a question" : "questions") + " open: answer " +
          "below to complete the hand, or check the tiles and set the melds and the winning tile yourself."
        : "The tiles were found but not grouped into a hand: check them below, then set the melds " +
          "and the winning tile.";
    }
    if (readingNotes.length) state.photoNote = (state.photoNote ? state.photoNote + " " : "") + readingNotes.join(" ");
    // how the photo itself falls short (small, blurred or dark tiles, a tile cut off): what to do for a second one
    const advice = (data.photo_advice || []).filter((a) => a && typeof a.message === "string");
    $("photo-advice-list").replaceChildren(...advice.map((a) => h("li", { "data-kind": String(a.kind || "") },
                                                                  a.message)));
    $("photo-advice").hidden = !advice.length;
    normalise(state.hand);
    renderHand();
    renderContext();
    renderQuestions();
    renderPhoto(true);
    $("notation").value = formatHand(state.hand);
    setNotationError(null);
    if (data.score) { state.scoreSeq++; showResult(data.score); updateWaits(); }
    else scheduleScore();
  }

  function groupColour(name) {
    if (name && name.startsWith("meld:")) return MELD_COLOURS[Number(name.slice(5)) % MELD_COLOURS.length];
    return GROUP_COLOURS[name] || GROUP_COLOURS.unmatched;
  }

  function groupLabel(name, hand) {    // hand: the one the groups name (the photo's reading, or the hand now)
    if (name && name.startsWith("meld:")) {
      const i = Number(name.slice(5));
      const meld = ((hand || state.hand).melds || [])[i];
      return "meld " + (i + 1) + (meld ? " (" + meldCaption(meld) + ")" : "");
    }
    return { concealed: "standing tiles", winning: "winning tile", flowers: "flowers", back: "face down",
             unmatched: "not in the hand" }[name] || name;
  }

  let photoImage = null;
  function renderPhoto(reload) {
    const view = $("photo-view");
    if (!state.detection) { view.hidden = true; return; }
    view.hidden = false;
    if (reload || !photoImage) {
      photoImage = new Image();
      photoImage.onload = () => drawPhoto(photoImage);
      photoImage.onerror = () => drawPhoto(null);
      photoImage.src = state.photo;
      return;
    }
    drawPhoto(photoImage.complete && photoImage.naturalWidth ? photoImage : null);
  }

  function drawPhoto(image) {
    const detection = state.detection;
    if (!detection) return;
    const canvas = $("photo-canvas");
    const width = detection.image.width, height = detection.image.height;
    const scale = Math.min(1, 1600 / Math.max(width, height));
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext("2d");
    if (image) ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    else { ctx.fillStyle = "#d6d2c4"; ctx.fillRect(0, 0, canvas.width, canvas.height); }
    const tiles = detection.tiles || [];
    // the grouping's own groups name the hand as read from the photo; without them, match the hand now
    const tagged = G.tagged(tiles);
    const groups = G.tileGroups(tiles, state.hand);
    const named = tagged && state.readHand ? state.readHand : state.hand;
    const ratio = canvas.width / Math.max(1, canvas.clientWidth || canvas.width);  // canvas px per screen px
    const line = Math.max(2, 2 * ratio);
    const used = new Set();
    tiles.forEach((tile, i) => {
      const [x1, y1, x2, y2] = tile.box.map((v) => v * scale);
      const colour = groupColour(groups[i]);
      used.add(groups[i]);
      ctx.lineWidth = line;
      ctx.strokeStyle = colour;
      ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
      // labels at least 11 screen pixels high where the box allows (the canvas is shown scaled)
      const size = Math.min(Math.max(11 * ratio, (x2 - x1) * 0.16), (x2 - x1) * 0.3);
      ctx.font = "600 " + size + "px system-ui, sans-serif";
      let label = tile.code + (tile.confidence !== undefined ? " " + Math.round(tile.confidence * 100) + "%" : "");
      if (ctx.measureText(label).width > (x2 - x1) * 1.05) label = tile.code;
      const w = ctx.measureText(label).width + size * 0.5;
      const top = y1 - size * 1.3 >= 0 ? y1 - size * 1.3 : y1;
      ctx.globalAlpha = 0.85;
      ctx.fillStyle = colour;
      ctx.fillRect(x1 - line / 2, top, w, size * 1.3);
      ctx.globalAlpha = 1;
      ctx.fillStyle = "#ffffff";
      ctx.textBaseline = "middle";
      ctx.fillText(label, x1 + size * 0.25 - line / 2, top + size * 0.65);
    });
    const legend = $("photo-legend");
    legend.replaceChildren(...[...used].sort().map((name) => h("li", {},
      h("span", { class: "swatch", "data-colour": groupColour(name) }), groupLabel(name, named))));
    for (const swatch of legend.querySelectorAll(".swatch")) swatch.style.background = swatch.dataset.colour;
    canvas.setAttribute("aria-label", "The photo with " + tiles.length + " detected tiles boxed and named");
    $("photo-note").textContent = (image ? "" : "This browser cannot show this photo (HEIC?): the boxes are drawn " +
      "on a blank. ") + (state.photoNote || "");
  }

  function renderQuestions() {
    const section = $("questions-section");
    const form = $("questions");
    form.replaceChildren();
    section.hidden = !state.questions.length;
    state.questions.forEach((question, qi) => {
      const name = "q-" + (question.id || qi);
      // a question none of whose answers changes the score under the chosen rules (the server weighs them)
      question.hint = h("p", { class: "hint settled" });
      question.labels = [];
      const fieldset = h("fieldset", {}, h("legend", { text: question.text }), question.hint);
      (question.choices || []).forEach((choice, ci) => {
        const id = name + "-" + ci;
        const input = h("input", { type: "radio", name: name, id: id, value: String(ci) });
        input.addEventListener("change", () => {
          question.answer = ci;
          answerQuestions(choice);
        });
        question.labels[ci] = h("label", { for: id, text: choiceText(choice, ci) });
        fieldset.append(h("div", { class: "choice" }, input, question.labels[ci]));
      });
      form.append(fieldset);
    });
    markStakes();
  }

  /** A choice's label, with what the hand it leads to scores where the server says (a whole, valid hand). */
  function choiceText(choice, ci) {
    if (typeof choice === "string") return choice;
    const label = choice.label || choice.text || String(ci + 1);
    return typeof choice.total === "number" ? label + " \u2014 " + choice.total + " points" : label;
  }

  /** Each question's hint: whether its answer can change the score under the rules chosen now; and each choice's
   * score. */
  function markStakes() {
    for (const question of state.questions) {
      if (!question.hint) continue;
      const settled = question.changes_score === false;
      question.hint.hidden = !settled;
      question.hint.textContent = settled ? "No answer to this changes the score under " + ruleSet().title +
        ": you may leave it." : "";
      (question.choices || []).forEach((choice, ci) => {
        if (question.labels[ci]) question.labels[ci].textContent = choiceText(choice, ci);
      });
    }
  }

  /** The rules changed: which questions can change the score is asked again (with the answers given so far). */
  async function weighQuestions() {
    if (!state.detection || !state.questions.length) return;
    // a sequence of its own: a change of rules must not drop the hand an answer in flight brings back
    const seq = ++state.weighSeq;
    const rules = state.rules;
    const reply = await api("/api/answer", { rules: rules, detection: state.detection,
                                             answers: givenAnswers(), context: state.hand.context });
    if (seq !== state.weighSeq || rules !== state.rules || !reply.ok) return;
    takeStakes(reply.data.questions || [], false);
  }

  /** The server's changes_score flags and choice totals for the questions still open. An answered question (the
   * server weighs only the open ones) keeps its own after an answer, and loses its totals after a change of rules
   * (``keepAnswered`` false): they were another rule set's. */
  function takeStakes(questions, keepAnswered) {
    const byId = new Map(questions.map((q) => [q.id, q]));
    for (const question of state.questions) {
      const weighed = byId.get(question.id);
      if (!weighed && keepAnswered) continue;
      if (weighed) question.changes_score = weighed.changes_score;
      const totals = new Map(((weighed && weighed.choices) || []).map((c) => [c.label, c.total]));
      for (const choice of question.choices || []) {
        if (typeof choice !== "object") continue;
        if (typeof totals.get(choice.label) === "number") choice.total = totals.get(choice.label);
        else delete choice.total;
      }
    }
    markStakes();
  }

  function givenAnswers() {
    const answers = {};
    state.questions.forEach((q, qi) => {
      const picked = q.answer === undefined ? undefined : (q.choices || [])[q.answer];
      if (picked !== undefined) answers[q.id || String(qi)] = typeof picked === "string" ? picked : picked.label;
    });
    return answers;
  }

  function takeHand(hand) {       // an answer's hand replaces the hand; the player's context stays
    state.photoNote = "";          // the answer completes the hand: the note asking for it is done
    const context = state.hand.context;
    const taken = JSON.parse(JSON.stringify(hand));
    taken.melds = taken.melds || [];
    taken.flowers = taken.flowers || [];
    taken.context = Object.assign({}, taken.context || {}, context);
    if (JSON.stringify(taken) === JSON.stringify(state.hand)) return;
    state.hand = taken;
    edited();
    renderContext();
  }

  /** Every answer given so far goes to /api/answer at once, which groups the photo's detection again and
   * applies them all: answers to two questions add up, and going back to a choice puts its hand back. The
   * choice's own hand (from /api/scan) is taken at once, and is what stays when the server cannot answer
   * (a scanner whose questions are not vision/'s). */
  async function answerQuestions(choice) {
    const answers = givenAnswers();
    const seq = ++state.answerSeq;
    const own = choice && typeof choice === "object" && choice.hand ? choice.hand : null;
    const alone = Object.keys(answers).length === 1;  // the choice's own hand is then the whole answer
    const note = $("questions-note");
    note.textContent = "";
    if (own && alone) takeHand(own);
    if (!state.detection) return;
    const rules = state.rules;
    const reply = await api("/api/answer", { rules: rules, detection: state.detection, answers: answers,
                                             context: state.hand.context });
    if (seq !== state.answerSeq) return;
    if (reply.ok && rules === state.rules) takeStakes(reply.data.questions || [], true);  // the rules chosen now
    if (reply.ok && reply.data.hand) takeHand(reply.data.hand);
    else if (reply.ok) note.textContent = "Answer the other questions too: the hand is not whole yet.";
    else if (own && !alone) {
      takeHand(own);
      note.textContent = "Only this answer is taken: " + errorMessage(reply);
    } else if (!own) note.textContent = errorMessage(reply);
  }

  const input = $("photo-input");
  if (input) {
    input.addEventListener("change", () => { uploadPhoto(input.files[0]); input.value = ""; });
    const zone = $("drop-zone");
    ["dragenter", "dragover"].forEach((type) => zone.addEventListener(type, (event) => {
      event.preventDefault(); zone.classList.add("dragging");
    }));
    ["dragleave", "drop"].forEach((type) => zone.addEventListener(type, () => zone.classList.remove("dragging")));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      const file = event.dataTransfer && event.dataTransfer.files[0];
      if (file) uploadPhoto(file);
    });
    // a photo dropped anywhere else on the page should not navigate away from it
    window.addEventListener("dragover", (event) => event.preventDefault());
    window.addEventListener("drop", (event) => event.preventDefault());
  }

  // ------------------------------------------------------------------------------------------------
  // Start

  async function start() {
    const reply = await api("/api/rules");
    if (reply.ok) state.rulesList = reply.data.rules;
    else $("context-fields").append(h("p", { class: "error", text: errorMessage(reply) }));
    renderContext();
    renderHand();
    document.body.dataset.ready = "true";
    if (!HAS_DETECTOR) $("notation").setAttribute("autofocus", "");
  }

  start();
})();
