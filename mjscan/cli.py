"""The ``mjscan`` command line: a thin layer over :mod:`scorer` (and, later, vision and server).

    mjscan score [--rules RULES] [--json] HAND.json      # or '-' for standard input
    mjscan score [--rules RULES] --notation "123m 456m 789m 234p 5s +5s | self_drawn"
    mjscan score [--rules RULES] --batch IN.jsonl        # one hand per line in, one result per line out
    mjscan settle [--rules RULES] [--json] TABLE.json   # every hand at a table, and who pays whom
    mjscan waits [--rules RULES] [--json] --notation "123m 456m 789m 23p 55s"   # the tiles it waits on
    mjscan rules [--json]                                # the rule sets and the context keys they read
    mjscan synth --count N --out DIR [--seed S] [--size PX] ...   # render labelled synthetic photos
    mjscan synth prepare-art --out DIR                   # build the tile-art bundle the renderer uses
    mjscan serve [--host 127.0.0.1] [--port 8000]       # the upload page and the JSON API (waitress)
    mjscan detect [--json] [--model PATH] [--conf C] PHOTO... [--draw OUT.jpg]   # the tiles in photos (ONNX)
    mjscan eval-detector DATA_DIR [--model PATH]        # mAP50, mAP50-95, P/R, confusions on a YOLO folder
    mjscan train --config configs/detector.yaml         # train and export the detector (the 'train' extra)

Exit status: 0 for a valid hand; 2 for bad input (a missing file, malformed JSON, an impossible hand,
a hand that is not a win or is under the rule set's minimum) or an unknown rule set; 1 if the scorer
itself failed (a bug). Messages for people go to standard error; there is never a traceback for bad
input. Only the standard library and scorer's light types are imported here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Iterable, TextIO

from scorer.codec import hand_from_dict
from scorer.errors import HandError
from scorer.hand import Hand
from scorer.notation import parse_hand
from scorer.result import Score
from scorer.rules import RULE_SETS, get_rule_set

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_INVALID = 2


class InputError(Exception):
    """Input that is not a hand at all (unreadable file, not JSON): ``code`` and a message for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------------------------------
# Parsing the command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjscan",
        description="Photograph a finished mahjong hand, get its score: 'mjscan scan --rules R PHOTO' reads the "
                    "hand in a photo and scores it; 'mjscan score' scores a hand written as JSON or in the text "
                    "notation.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    score = commands.add_parser(
        "score", help="score a hand (JSON file, '-' for stdin, --notation or --batch)",
        description="Score one hand, or a batch of hands, under a rule set.",
        epilog="Notation: standing tiles as digits then a suit letter (m p s z f), the winning tile after '+', "
               "exposed melds in [ ] with ' after the claimed tile, concealed kongs in ( ), then the context "
               "after '|', e.g. \"123m 456p 9p [4'35s] (6666z) 27f +9p | self_drawn seat=S\".")
    score.add_argument("--rules", default="mcr", metavar="RULES",
                       help="rule set to score by (default: mcr; see 'mjscan rules')")
    score.add_argument("--json", action="store_true",
                       help="print the result as JSON (the shared result format) instead of a table")
    source = score.add_mutually_exclusive_group(required=True)
    source.add_argument("hand", nargs="?", metavar="HAND",
                        help="a hand JSON file, or '-' to read it from standard input")
    source.add_argument("--notation", metavar="TEXT", help="the hand in the text notation instead of a file")
    source.add_argument("--batch", metavar="IN.jsonl",
                        help="score one hand JSON per line ('-' for stdin); print one result JSON per line, "
                             "in order (blank lines are skipped)")
    score.set_defaults(run=cmd_score)

    settle = commands.add_parser(
        "settle", help="score every hand at a table and say who pays whom",
        description="Score every player's hand under a rule set and settle the payments. The input is a JSON "
                    "object: {\"players\": [{\"seat\": \"E\", \"hand\": {...}}, ...], \"winner\": \"S\" "
                    "(or null for a draw), \"discarder\": \"W\" (or null when self-drawn), \"dealer\": \"E\", "
                    "\"prevalent_wind\": \"E\"}. Non-winners' hands have 13 tiles and no winning tile.")
    settle.add_argument("--rules", default="mcr", metavar="RULES", help="rule set (default: mcr)")
    settle.add_argument("--json", action="store_true", help="print the settlement as JSON")
    settle.add_argument("table", metavar="TABLE", help="a table JSON file, or '-' for standard input")
    settle.set_defaults(run=cmd_settle)

    waits = commands.add_parser(
        "waits", help="the tiles a 13-tile hand waits on",
        description="List the tiles that would complete a hand (13 tiles, no winning tile) into a mahjong.")
    waits.add_argument("--rules", default="mcr", metavar="RULES", help="rule set (default: mcr)")
    waits.add_argument("--json", action="store_true", help="print the tiles as a JSON list")
    waits_source = waits.add_mutually_exclusive_group(required=True)
    waits_source.add_argument("hand", nargs="?", metavar="HAND", help="a hand JSON file, or '-' for stdin")
    waits_source.add_argument("--notation", metavar="TEXT", help="the hand in the text notation")
    waits.set_defaults(run=cmd_waits)

    rules = commands.add_parser("rules", help="list the rule sets and their context keys",
                                description="List the rule sets and the context keys each one reads.")
    rules.add_argument("--json", action="store_true", help="print the list as JSON")
    rules.set_defaults(run=cmd_rules)
    _add_synth(commands)
    _add_serve(commands)
    _add_vision(commands)
    _add_grouping(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; answers the exit status (``python -m mjscan`` passes it to sys.exit)."""
    parser = build_parser()
    args = parser.parse_args(argv)  # usage errors: argparse prints them and exits with status 2
    try:
        return args.run(args)
    except BrokenPipeError:  # e.g. `mjscan score --batch big.jsonl | head`
        try:  # silence the flush at exit: the reader has gone
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


# --------------------------------------------------------------------------------------------------
# mjscan score


def cmd_score(args: argparse.Namespace) -> int:
    try:
        rule_set = get_rule_set(args.rules)
    except KeyError as error:
        _err(error.args[0])
        return EXIT_INVALID
    if args.batch is not None:
        return _score_batch(rule_set, args.batch)

    try:
        text = args.notation if args.notation is not None else _read_text(args.hand)
    except InputError as error:  # no hand at all: a message, and no result
        _err(error.message)
        return EXIT_INVALID
    if args.notation is not None:
        result, internal = _score_text(rule_set, lambda: parse_hand(text), warn=True)
    else:
        result, internal = _score_text(rule_set, lambda: hand_from_dict(_load_json(text, args.hand)), warn=True)
    if internal:
        _err(result.error.message)
        return EXIT_INTERNAL
    if args.json:
        _print_json(result.to_dict())
    elif result.items or result.settlement or result.valid:
        sys.stdout.write(format_table(result, title=getattr(rule_set, "title", rule_set.name)))
    if not result.valid:
        _err(result.error.message if result.error is not None else "The hand is not valid.")
        return EXIT_INVALID
    return EXIT_OK


def _score_batch(rule_set: Any, source: str) -> int:
    """One result per non-blank input line, in order; a bad line gives a ``valid: false`` result.

    Exit status: 1 if the scorer failed on a line (a bug), else 2 if any line was not valid, else 0."""
    try:
        stream = sys.stdin if source == "-" else open(source, encoding="utf-8-sig")
    except OSError as error:
        _err(_file_message(source, error))
        return EXIT_INVALID
    invalid = internal = False
    try:
        for number, line in _numbered_lines(stream, source):
            if not line.strip():
                continue
            result, failed = _score_text(rule_set, lambda: hand_from_dict(_load_json(line, None)))
            if not result.valid:
                invalid = True
                internal = internal or failed
                _err(f"line {number}: " + (result.error.message if result.error is not None else "not valid."))
            sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    except InputError as error:
        _err(error.message)
        return EXIT_INVALID
    finally:
        if stream is not sys.stdin:
            stream.close()
    return EXIT_INTERNAL if internal else EXIT_INVALID if invalid else EXIT_OK


def _numbered_lines(stream: TextIO, source: str) -> Iterable[tuple[int, str]]:
    try:
        yield from enumerate(stream, start=1)
    except UnicodeDecodeError:
        raise InputError("unreadable", f"{_name(source)} is not UTF-8 text.") from None
    except OSError as error:
        raise InputError("unreadable", _file_message(source, error)) from None


def _score_text(rule_set: Any, read: Callable[[], Hand], *, warn: bool = False) -> tuple[Score, bool]:
    """Read a hand and score it: the result (``valid: false`` for a bad hand), and whether mjscan itself
    failed (a bug, reported as ``internal_error``). With ``warn``, say on stderr which of the hand's own
    context keys the rule set does not read (a typo such as ``selfdrawn`` would otherwise pass unseen)."""
    try:
        hand = read()
    except (InputError, HandError) as error:
        return Score.invalid(rule_set.name, error.code, error.message), False
    except Exception as error:
        return Score.invalid(rule_set.name, "internal_error", _internal_message("reading", error)), True
    if warn:
        known = {key.key for key in rule_set.context_keys}
        unread = [key for key, _ in hand.context.extra if key not in known]
        if unread:
            _err(f"note: the {rule_set.name} rules do not read the context "
                 f"{'keys' if len(unread) > 1 else 'key'} {', '.join(repr(k) for k in unread)}: ignored.")
    try:
        return rule_set.score(hand), False
    except Exception as error:
        return Score.invalid(rule_set.name, "internal_error", _internal_message("scoring", error)), True


def _read_text(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8-sig") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise InputError("unreadable", f"{_name(path)} is not UTF-8 text: a hand is a JSON file.") from None
    except OSError as error:
        raise InputError("unreadable", _file_message(path, error)) from None


def _load_json(text: str, path: str | None) -> Any:
    where = f"{_name(path)} is not" if path is not None else "Not"
    if not text.strip():
        raise InputError("bad_json", f"{where} a hand: it is empty (expected a JSON object).")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        hint = (" To score a hand in the text notation, use --notation."
                if path is not None and text.lstrip()[:1] not in ("{", "[") else "")
        raise InputError("bad_json", f"{where} valid JSON: {error.msg} at line {error.lineno}, "
                                     f"column {error.colno}.{hint}") from None
    except (RecursionError, ValueError) as error:
        raise InputError("bad_json", f"{where} valid JSON: {error}.") from None


def _name(path: str | None) -> str:
    return "Standard input" if path in (None, "-") else f"'{path}'"


def _file_message(path: str, error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return f"No such file: '{path}'."
    if isinstance(error, IsADirectoryError):
        return f"'{path}' is a folder, not a hand file."
    if isinstance(error, PermissionError):
        return f"Cannot read '{path}': permission denied."
    return f"Cannot read '{path}': {error.strerror or error}."


def _internal_message(stage: str, error: Exception) -> str:
    return (f"mjscan failed while {stage} this hand ({type(error).__name__}: {error}). This is a bug in "
            "mjscan; please report it with the hand.")


# --------------------------------------------------------------------------------------------------
# mjscan settle and mjscan waits


def _refusing_bad_input(work: Callable[[], Any]) -> tuple[Any, int | None]:
    """Run ``work``; for bad input (an unknown rule set, an unreadable file, an impossible hand) say why
    on stderr and answer exit status 2 instead of a value."""
    try:
        return work(), None
    except KeyError as error:
        _err(error.args[0])
    except (InputError, HandError) as error:
        _err(error.message)
    return None, EXIT_INVALID


def cmd_settle(args: argparse.Namespace) -> int:
    from scorer.table import settle, table_from_dict

    result, refused = _refusing_bad_input(
        lambda: settle(table_from_dict(_load_json(_read_text(args.table), args.table)), args.rules))
    if refused:
        return refused
    if args.json:
        _print_json(result.to_dict())
        return EXIT_OK
    lines = [f"Settlement ({result.rules})"]
    for seat, score in result.scores:
        state = f"{score.total}" if score.valid else f"{score.total} ({score.error.message})"
        lines.append(f"  {seat.value}  hand: {state}")
    if len(result.scores) < len(result.seats):
        lines.append(f"  (the {result.rules} rules score only the winner's hand)")
    lines.append("Payments:")
    lines += [f"  {p.payer.value} pays {p.payee.value} {p.amount}" for p in result.payments if p.amount]
    lines.append("Net: " + "  ".join(f"{seat} {amount:+d}" for seat, amount in result.net().items()))
    lines += [f"Note: {note}" for note in result.notes]
    print("\n".join(lines))
    return EXIT_OK


def cmd_waits(args: argparse.Namespace) -> int:
    from scorer.waits import waiting_tiles

    def read() -> Hand:
        if args.notation is not None:
            return parse_hand(args.notation)
        return hand_from_dict(_load_json(_read_text(args.hand), args.hand))

    tiles, refused = _refusing_bad_input(lambda: waiting_tiles(read(), args.rules))
    if refused:
        return refused
    if args.json:
        _print_json([t.code for t in tiles])
    elif tiles:
        print("Waits on: " + " ".join(f"{t.code} ({t.name})" for t in tiles))
    else:
        print("Not ready: no single tile completes this hand.")
    return EXIT_OK


# --------------------------------------------------------------------------------------------------
# The readable table


def format_table(result: Score, title: str | None = None) -> str:
    """A result as a table for people: one line per item, the total, the settlement, the notes.

    >>> from scorer import parse_hand, score
    >>> print(format_table(score(parse_hand("123m 456m 789m 234p 5s +5s | self_drawn"))), end="")
    Fan                   Points  Count  Subtotal
    Pure Straight             16      1        16
    Fully Concealed Hand       4      1         4
    All Chows                  2      1         2
    Single Wait                1      1         1
    Total                                      23
    <BLANKLINE>
    Settlement (+ receives, - pays)
      winner     +93
      discarder  none (self-drawn)
      others     -31 each
    """
    lines: list[str] = []
    if title:
        lines.append(title)
    items = list(result.items)
    if items:
        doubling = result.base is not None or any(item.doubles is not None for item in items)
        label = "Item" if doubling else "Fan"  # fans are MCR's word; the doubling rule sets score items
        name_width = max(len(label), len("Total"), *(len(item.name) for item in items))
        head = f"{label:<{name_width}}  {'Points':>6}  {'Count':>5}  {'Subtotal':>8}"
        if doubling:
            head += f"  {'Doubles':>7}"
        lines.append(head)
        for item in items:
            points = "" if item.points is None else str(item.points)
            subtotal = "" if item.points is None else str(item.value)
            line = f"{item.name:<{name_width}}  {points:>6}  {item.count:>5}  {subtotal:>8}"
            if doubling:
                line += f"  {'' if item.doubles is None else item.doubles * item.count:>7}"
            lines.append(line.rstrip())
        width = len(head)
        if result.base is not None:
            lines.append(_total_line("Base", result.base, name_width))
        if result.doubles is not None:
            lines.append(f"{'Doubles':<{width - 8}}{result.doubles:>8}")
        lines.append(_total_line("Total", result.total, name_width))
    elif result.valid:
        lines.append(f"Total: {result.total}")
    settlement = dict(result.settlement)
    if settlement:
        lines.append("")
        lines.append("Settlement (+ receives, - pays)")
        for seat, amount in settlement.items():
            if amount is None:
                shown = "none (self-drawn)" if seat == "discarder" else "none"
            else:
                shown = f"{amount:+d}" + (" each" if seat == "others" else "")
            lines.append(f"  {seat:<9}  {shown}")
    if result.notes:
        lines.append("")
        lines.extend(f"Note: {note}" for note in result.notes)
    return "\n".join(lines) + "\n"


def _total_line(label: str, value: int, name_width: int) -> str:
    return f"{label:<{name_width}}  {'':>6}  {'':>5}  {value:>8}"


# --------------------------------------------------------------------------------------------------
# mjscan rules


def cmd_rules(args: argparse.Namespace) -> int:
    rule_sets = list(RULE_SETS.items())
    if args.json:
        _print_json({"rules": [{"name": name, "title": getattr(rs, "title", name),
                                "context_keys": [key.to_dict() for key in rs.context_keys]}
                               for name, rs in rule_sets]})
        return EXIT_OK
    out: list[str] = []
    for name, rule_set in rule_sets:
        out.append(f"{name}: {getattr(rule_set, 'title', name)}")
        keys = rule_set.context_keys
        width = max((len(key.key) for key in keys), default=0)
        for key in keys:
            default = key.default if not isinstance(key.default, bool) else str(key.default).lower()
            kind = key.kind + (f" ({'/'.join(key.choices)})" if key.choices else "")
            out.append(f"  {key.key:<{width}}  {kind}, default {default}: {key.description}")
        out.append("")
    sys.stdout.write("\n".join(out))
    return EXIT_OK


# --------------------------------------------------------------------------------------------------
# mjscan serve


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="run the upload page and the JSON API (waitress)",
        description="Serve the upload page (/) and the JSON API (/api/health, /api/rules, /api/scan, /api/score, "
                    "/api/waits, /api/settle) with waitress. Photos are read in memory and never stored.",
        epilog="See docs/server.md. Without a detector in vision/ and a model in models/, /api/scan answers 503 "
               "no_detector and the page offers manual entry.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for "
                                                           "every interface, e.g. phones on the same network)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
    serve.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535 or args.threads < 1:
        _err("--port must be 0-65535 and --threads at least 1.")
        return EXIT_INVALID
    try:
        import waitress
        from server import create_app, waitress_options
    except ImportError as error:
        _err(f"The server needs Flask and waitress ({error}): pip install -e .")
        return EXIT_INVALID
    import logging

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = create_app()
    detector = "a detector" if app.config["SCANNER"] is not None else "no detector yet (manual entry only)"
    sys.stderr.write(f"mjscan: serving on http://{args.host}:{args.port}/ with {detector}; Ctrl-C stops\n")
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=args.threads, **waitress_options(app))
    except OSError as error:
        _err(f"Cannot listen on {args.host}:{args.port}: {error.strerror or error}.")
        return EXIT_INVALID
    return EXIT_OK


# --------------------------------------------------------------------------------------------------
# mjscan synth


def _add_synth(commands: Any) -> None:
    synth = commands.add_parser(
        "synth", help="render synthetic hand photos with exact labels (YOLO + sidecars)",
        description="Render photos of random valid hands laid out on tables, with YOLO labels in the 43-class "
                    "order, a JSON sidecar per photo (the hand, every tile's box, pose and group) and data.yaml. "
                    "Photo i depends only on (seed, i), whatever the number of workers.",
        epilog="Output: DIR/images/*.jpg, DIR/labels/*.txt, DIR/sidecars/*.json, DIR/data.yaml. "
               "See docs/renderer.md.")
    synth.add_argument("--count", type=int, metavar="N", help="how many photos to render")
    synth.add_argument("--out", metavar="DIR", help="output folder (created)")
    synth.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    synth.add_argument("--start", type=int, default=0, metavar="I",
                       help="index of the first photo (default 0): sets rendered in parts join up")
    synth.add_argument("--size", default="1280", metavar="PX",
                       help="the photos' long side in pixels, or a range MIN-MAX sampled per photo "
                            "(default 1280; the issue's full range is 640-4000)")
    synth.add_argument("--styles", nargs="+", metavar="NAME",
                       help="art styles to use, by name (default: every training style)")
    synth.add_argument("--held-out", action="store_true",
                       help="use the bundle's held-out style only (for the synthetic test set)")
    synth.add_argument("--workers", type=int, default=None, metavar="K",
                       help="parallel worker processes (default: the number of cores)")
    synth.add_argument("--preview", metavar="SHEET.png",
                       help="also write a contact sheet of the first 16 photos with their labels drawn")
    synth.add_argument("--art", metavar="DIR", help="the tile-art bundle (default: ./art, else the repository's art/)")
    synth.add_argument("--procedural-art", action="store_true",
                       help="use faces drawn in code instead of the art bundle (tests and benchmarks only)")
    synth.add_argument("--kinds", nargs="+", metavar="KIND",
                       help="scene kinds to draw from: guide crooked two_rows grid table scattered heap "
                            "(default: all but heap, which is only drawn when named)")
    synth.add_argument("--clutter", type=float, default=0.0, metavar="SHARE",
                       help="the share of photos (0-1) with unlabelled things on the table beside the hand: phones, "
                            "scoring sticks, dice, coins, cups, pens, score sheets (default 0)")
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    synth.set_defaults(run=cmd_synth)
    sub = synth.add_subparsers(dest="synth_command", metavar="prepare-art")
    prep = sub.add_parser("prepare-art", help="build the tile-art bundle (datasets.art.prepare)",
                          description="Build the tile-art bundle that 'mjscan synth' renders with.")
    prep.add_argument("--out", required=True, metavar="DIR", help="where to write the bundle (e.g. art)")
    prep.add_argument("--quiet", action="store_true", help="no progress output")
    prep.add_argument("--no-install", action="store_true", help="never run apt-get; say what to install instead")
    prep.add_argument("--contact-sheet", metavar="PNG", help="also write a contact sheet of every style's faces")
    prep.add_argument("--random", type=int, default=0, metavar="N",
                      help="N random painted styles instead of the fixed ones (domain randomisation)")
    prep.add_argument("--random-seed", type=int, default=0, metavar="S", help="the first random style's seed")
    prep.add_argument("--random-generation", type=int, default=1, choices=(1, 2, 3, 4, 5, 6), metavar="G",
                      help="the painter's option set for random styles: 1; 2 (adds flowers without seat "
                           "numbers, the 1s as one stick, other White frames); 3 (2, and the one-stick 1s "
                           "in any suit ink, width and length); 4 (3, and the numerals and bonus characters "
                           "in a brush hand four styles in five; fetches three calligraphy fonts from npm); or 5 "
                           "(4, with half the styles' numerals in a printed display face instead; fetches three "
                           "more fonts from npm); or 6 (5, with every mark outlined, edged, hollow or lined, four "
                           "styles in five)")
    prep.add_argument("--style", action="append", metavar="NAME",
                      help="only this style (repeatable; the held-out one always comes along), e.g. the opt-in "
                           "xm-real and xm-dorothys, xmahjongg's photographed and pixel-art tilesets")
    prep.set_defaults(run=cmd_prepare_art)


def _default_art_dir() -> str | None:
    here = os.path.join(os.getcwd(), "art")
    repo = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "art")
    for path in (here, repo):
        if os.path.isdir(path):
            return path
    return None


def _parse_size(text: str) -> int | tuple[int, int]:
    try:
        if "-" in text:
            lo, hi = (int(v) for v in text.split("-", 1))
        else:
            lo = hi = int(text)
    except ValueError:
        raise InputError("bad_size", f"--size must be a number of pixels or a range like 640-4000, not '{text}'.") \
            from None
    if not 64 <= lo <= hi <= 10000:
        raise InputError("bad_size", f"--size must lie between 64 and 10000 pixels (MIN <= MAX), not '{text}'.")
    return lo if lo == hi else (lo, hi)


def cmd_synth(args: argparse.Namespace) -> int:
    if args.count is None or args.out is None:
        _err("synth needs --count N and --out DIR (or the subcommand 'prepare-art --out DIR').")
        return EXIT_INVALID
    if args.count < 0 or (args.workers is not None and args.workers < 1):
        _err("--count must be at least 0 and --workers at least 1.")
        return EXIT_INVALID
    if not 0.0 <= args.clutter <= 1.0:
        _err(f"--clutter is a share of the photos, from 0 to 1, not {args.clutter:g}.")
        return EXIT_INVALID
    try:
        size = _parse_size(args.size)
    except InputError as error:
        _err(error.message)
        return EXIT_INVALID
    from datasets.render import RenderOptions, contact_sheet, procedural_bundle, render_set, select_styles
    from datasets.render.layout import SCENE_KINDS

    if args.kinds and set(args.kinds) - set(SCENE_KINDS):
        _err(f"Unknown scene kind(s) {', '.join(sorted(set(args.kinds) - set(SCENE_KINDS)))}; "
             f"choose from {', '.join(SCENE_KINDS)}.")
        return EXIT_INVALID
    if args.procedural_art:
        bundle = procedural_bundle()
    else:
        art = args.art or _default_art_dir()
        if art is None or not os.path.isdir(art):
            where = f"'{art}'" if art else "./art or the repository's art/"
            _err(f"No tile art at {where}. Build it first with: mjscan synth prepare-art --out art "
                 "(or pass --art DIR).")
            return EXIT_INVALID
        try:
            from datasets.art.bundle import load_bundle
        except ImportError:
            _err("The tile-art loader (datasets.art.bundle) is not part of this installation yet; "
                 "use --procedural-art to render with stand-in faces.")
            return EXIT_INVALID
        try:
            bundle = load_bundle(art)
        except Exception as error:  # a broken or partial bundle: say so, no traceback
            text = str(error).rstrip(".")
            hint = "" if "prepare-art" in text else f" Rebuild it with: mjscan synth prepare-art --out {art}"
            _err(f"Could not load the tile art in '{art}': {text}.{hint}")
            return EXIT_INVALID
    try:
        styles = select_styles(bundle, args.styles, args.held_out)
    except ValueError as error:
        _err(str(error))
        return EXIT_INVALID
    options = RenderOptions(size=size, kinds=tuple(args.kinds) if args.kinds else None, clutter=args.clutter)
    summary = render_set(args.out, args.count, args.seed, styles, options, workers=args.workers, start=args.start,
                         progress=not args.quiet)
    if args.preview:
        contact_sheet(args.out, args.preview)
    sys.stderr.write(f"mjscan: {summary['photos']} photos, {summary['labels']} labelled tiles in {args.out} "
                     f"({summary['photos_per_second']} photos/s; styles: {', '.join(s.name for s in styles)})\n")
    return EXIT_OK


def cmd_prepare_art(args: argparse.Namespace) -> int:
    # datasets.art.prepare.main reports missing Debian packages (with the apt line) as exit status 2.
    from datasets.art.prepare import main as prepare_main

    argv = ["--out", args.out] + ["--quiet"] * args.quiet + ["--no-install"] * args.no_install
    if args.contact_sheet:
        argv += ["--contact-sheet", args.contact_sheet]
    if args.random:
        argv += ["--random", str(args.random), "--random-seed", str(args.random_seed),
                 "--random-generation", str(args.random_generation)]
    for name in args.style or ():
        argv += ["--style", name]
    return prepare_main(argv)


# --------------------------------------------------------------------------------------------------


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def _err(message: str) -> None:
    sys.stderr.write(f"mjscan: {message}\n")


# --------------------------------------------------------------------------------------------------
# mjscan detect, mjscan train, mjscan eval-detector (vision/; onnxruntime, ultralytics only for train)


FAST_HELP = ("read each photo about twice as fast, a little less accurately: one crop a tile and no mirrored "
             "passes (models/README.md)")
EACH_ALONE_HELP = ("read each tile alone, not together with the tiles of the photo that look like it "
                   "(vision.sibling_readings, stop 33): to measure what that adds")
EVERY_CROP_HELP = ("read every box from all eight of its crops, each both ways up, not only the unsure ones "
                   "(vision.detector.SURE_READING and SURE_ONE_WAY, stops 45 and 46): to measure what reading the sure "
                   "ones from two crops, one way up, costs")


def _add_vision(commands: Any) -> None:
    train = commands.add_parser(
        "train", help="train the tile detector from a recipe (needs the 'train' extra: ultralytics)",
        description="Render the recipe's synthetic photos, train the detector with ultralytics and export it to "
                    "ONNX in models/. The whole recipe is in the config file.",
        epilog="Install the extra first: pip install -e '.[train]'. See models/README.md.")
    train.add_argument("--config", default="configs/detector.yaml", metavar="YAML",
                       help="the recipe (default: configs/detector.yaml)")
    train.add_argument("--epochs", type=int, metavar="N", help="override the recipe's epochs (and its time limit)")
    train.add_argument("--hours", type=float, metavar="H", help="override the recipe's wall-clock limit")
    train.add_argument("--fraction", type=float, metavar="F", help="train on this fraction of the images (smoke tests)")
    train.add_argument("--export-only", metavar="WEIGHTS",
                       help="skip training: export this checkpoint (.pt or a weights/ folder) to the recipe's ONNX path")
    train.set_defaults(run=cmd_train)

    detect = commands.add_parser(
        "detect", help="find the tiles in photos (the ONNX detector in models/)",
        description="Detect every tile in one or more photos: its code (or 'back'), box in the photo's pixels "
                    "(after EXIF orientation), confidence and whether it lies sideways.",
        epilog="With --json and several photos: one detection JSON object per line, each with a 'path' field.")
    detect.add_argument("photos", nargs="+", metavar="PHOTO", help="photo files (JPEG, PNG, HEIC, ...)")
    detect.add_argument("--json", action="store_true", help="print the spec's detection JSON")
    detect.add_argument("--model", metavar="PATH", help="the ONNX model (default: models/detector.onnx)")
    detect.add_argument("--fast", action="store_true", help=FAST_HELP)
    detect.add_argument("--conf", type=float, default=None, metavar="C",
                        help="confidence threshold in 0..1 (default: the shipped 0.25)")
    detect.add_argument("--draw", metavar="OUT.jpg",
                        help="also write the photo with the boxes and codes drawn (several photos: OUT-<name>.jpg)")
    detect.add_argument("--labels", metavar="DIR",
                        help="also write each photo's tiles as a YOLO label file, DIR/<name>.txt, and the class "
                             "names in their order as DIR/classes.txt: a first labelling to correct in a labelling "
                             "tool (an existing label file is never overwritten)")
    detect.set_defaults(run=cmd_detect)

    evaluate = commands.add_parser(
        "eval-detector", help="measure the detector on a labelled folder (YOLO layout)",
        description="Run the ONNX detector over DATA_DIR/images and score it against DATA_DIR/labels with "
                    "mjscan's own metrics: mAP50, mAP50-95 (COCO-style, 101 points), per-class AP, precision "
                    "and recall at the confidence threshold, the most confused pairs, the share of photos read "
                    "exactly right, the sideways accuracy (renderer sets with sidecars/), where box precision is "
                    "lost (the mAP at each IoU threshold, the matched boxes' mean IoU and their edges' median offsets "
                    "from the labels) and a confusion-matrix PNG.")
    evaluate.add_argument("data", metavar="DATA_DIR", help="a folder with images/ and labels/ (YOLO)")
    evaluate.add_argument("--model", metavar="PATH", help="the ONNX model (default: models/detector.onnx)")
    evaluate.add_argument("--fast", action="store_true", help="measure the --fast reading: " + FAST_HELP)
    evaluate.add_argument("--each-alone", action="store_true", help=EACH_ALONE_HELP)
    evaluate.add_argument("--every-crop", action="store_true", help=EVERY_CROP_HELP)
    evaluate.add_argument("--conf", type=float, default=None, metavar="C",
                          help="the threshold for precision, recall and confusions (default: the shipped 0.25)")
    evaluate.add_argument("--classes", choices=("all", "riichi"), default="all",
                          help="score all 43 classes, or only the 34 suit and honour kinds (default: all)")
    evaluate.add_argument("--limit", type=int, metavar="N", help="only the first N photos (by name)")
    evaluate.add_argument("--exclude", metavar="FILE", action="append",
                          help="leave out the photos named in FILE, one name per line, '#' comments (e.g. "
                               "datasets/real-photos-label-errors.txt: photos labelled 1p throughout, and "
                               "datasets/real-photos-tile-label-errors.txt: single tiles labelled as another); "
                               "may be given more than once")
    evaluate.add_argument("--out", metavar="DIR", default="runs/eval",
                          help="where to write report.json and confusion.png (default: runs/eval/<folder name>)")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluate.set_defaults(run=cmd_eval_detector)


def cmd_train(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vision.training import TrainingError, export, load_config, repo_root, train

    try:
        if args.export_only:
            config = load_config(args.config)
            root = repo_root(Path(args.config).resolve().parent)
            target = export(config, root, Path(args.export_only))
        else:
            target = train(args.config, epochs=args.epochs, hours=args.hours, fraction=args.fraction)
    except TrainingError as error:
        _err(str(error))
        return EXIT_INVALID
    sys.stdout.write(f"{target}\n")
    return EXIT_OK


def _load_detector(model: str | None, conf: float | None, fast: bool = False, each_alone: bool = False,
                   every_crop: bool = False) -> Any:
    """The Detector, or an InputError with a message (missing model, bad threshold, no onnxruntime). ``fast``:
    one crop a box and no mirrored passes (``FAST_READING``); ``each_alone``: each tile read alone, not with the
    tiles that look like it (``vision.sibling_readings``), to measure what that adds; ``every_crop``: every box read
    from all its crops, both ways up (no ``SURE_READING`` nor ``SURE_ONE_WAY``), to measure what reading the sure ones
    from two crops, one way up, costs."""
    if conf is not None and not 0.0 <= conf <= 1.0:
        raise InputError("bad_confidence", f"--conf must lie between 0 and 1, not {conf}.")
    from vision.detector import DEFAULT_CONFIDENCE, FAST_READING, Detector, DetectorError

    try:
        return Detector(model, confidence=DEFAULT_CONFIDENCE if conf is None else conf,
                        share_readings=not each_alone, **({"sure_reading": None} if every_crop else {}),
                        **(FAST_READING if fast else {}))
    except DetectorError as error:
        raise InputError("no_model", str(error)) from None


def cmd_detect(args: argparse.Namespace) -> int:
    try:
        detector = _load_detector(args.model, args.conf, args.fast)
    except InputError as error:
        _err(error.message)
        return EXIT_INVALID
    from pathlib import Path

    from vision.detector import DetectorError, load_image

    labels = None
    if args.labels:
        labels = _label_folder(args.labels, args.photos)
        if labels is None:
            return EXIT_INVALID
    status = EXIT_OK
    several = len(args.photos) > 1
    for path in args.photos:
        try:
            image = load_image(path)
            detections = detector.detect(image)
        except DetectorError as error:
            _err(str(error))
            status = EXIT_INVALID
            continue
        if args.json:
            _print_json({"path": path, **detections.to_dict()})
        else:
            sys.stdout.write(_format_detections(path, detections))
        if args.draw:
            from vision.draw import save_drawing

            target = Path(args.draw)
            if several:
                target = target.with_name(f"{target.stem}-{Path(path).stem}{target.suffix or '.jpg'}")
            try:
                save_drawing(image, detections, target)
            except (OSError, ValueError) as error:
                _err(f"Cannot write the drawing '{target}': {error}.")
                status = EXIT_INVALID
        if labels is not None and not _write_labels(labels / f"{Path(path).stem}.txt", detections):
            status = EXIT_INVALID
    return status


def _label_folder(folder: str, photos: list[str]) -> Any:
    """The folder ``detect --labels`` writes to (made, with ``classes.txt``), or None after saying why not: two photos
    of one name (their label files would be one), or a folder that cannot be made."""
    from collections import Counter
    from pathlib import Path

    from vision.classes import CLASS_NAMES

    twice = [stem for stem, n in Counter(Path(p).stem for p in photos).items() if n > 1]
    if twice:
        _err(f"--labels writes one file a photo name, and several photos are named '{twice[0]}': label them "
             "in separate runs.")
        return None
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
        (target / "classes.txt").write_text("".join(name + "\n" for name in CLASS_NAMES), encoding="utf-8")
    except OSError as error:
        _err(f"Cannot write the labels to '{folder}': {error.strerror or error}.")
        return None
    return target


def _write_labels(path: Any, detections: Any) -> bool:
    """Write a photo's YOLO label file; never over an existing one (it may hold a person's corrections)."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(detections.to_yolo())
    except FileExistsError:
        _err(f"'{path}' exists already: it was left as it is (move it away to label the photo again).")
        return False
    except OSError as error:
        _err(f"Cannot write '{path}': {error.strerror or error}.")
        return False
    return True


def _format_detections(path: str, detections: Any) -> str:
    from vision.classes import class_code

    tiles = sorted(detections.tiles, key=lambda t: (t.center[0], t.center[1]))
    lines = [f"{path}: {len(tiles)} tiles in {detections.width}x{detections.height} (left to right)"]
    for tile in tiles:
        x1, y1, x2, y2 = tile.box
        side = "  sideways" if tile.sideways else ""
        # an unsure reading shows the runner-up (a tenth as likely or more): what to check in the photo
        others = [f"{class_code(code)} {chance:.2f}" for code, chance in tile.alternatives
                  if chance >= 0.1 * tile.confidence]
        unsure = f"  (or {', '.join(others)})" if others else ""
        lines.append(f"  {tile.code_str:>4}  {tile.confidence:.2f}  [{x1:.0f}, {y1:.0f}, {x2:.0f}, {y2:.0f}]{side}{unsure}")
    return "\n".join(lines) + "\n"


def cmd_eval_detector(args: argparse.Namespace) -> int:
    from pathlib import Path

    if not os.path.isdir(args.data) or not os.path.isdir(os.path.join(args.data, "images")):
        _err(f"'{args.data}' is not a folder with images/ and labels/ (YOLO layout).")
        return EXIT_INVALID
    if not os.path.isdir(os.path.join(args.data, "labels")):  # every photo would count as showing no tile
        _err(f"'{args.data}' has images/ but no labels/: the detector is scored against the labels (YOLO layout, "
             "labels/<photo>.txt).")
        return EXIT_INVALID
    try:
        detector = _load_detector(args.model, args.conf, args.fast, args.each_alone, args.every_crop)
    except InputError as error:
        _err(error.message)
        return EXIT_INVALID
    from vision.classes import RIICHI_IDS
    from vision.detector import DetectorError
    from vision.evaluate import evaluate_folder, plot_confusion

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty() and (done % 10 == 0 or done == total):
            sys.stderr.write(f"\r{done}/{total} photos")
            if done == total:
                sys.stderr.write("\n")

    from vision.evaluate import read_exclusions

    exclude: set[str] = set()
    for listed in args.exclude or ():
        try:
            exclude |= read_exclusions(listed)
        except OSError as error:
            _err(f"Cannot read the exclusion list '{listed}': {error.strerror or error}.")
            return EXIT_INVALID
    try:
        report = evaluate_folder(args.data, detector, classes=RIICHI_IDS if args.classes == "riichi" else None,
                                 limit=args.limit, progress=progress, exclude=exclude)
    except (ValueError, DetectorError) as error:
        _err(str(error))
        return EXIT_INVALID
    out = Path(args.out)
    if args.out == "runs/eval":
        out = out / (Path(os.path.abspath(args.data)).name + ("-riichi" if args.classes == "riichi" else ""))
    out.mkdir(parents=True, exist_ok=True)
    data = {"data": os.path.abspath(args.data), "model": str(detector.model_path), "classes": args.classes,
            "excluded": sorted(exclude), **report.to_dict()}
    (out / "report.json").write_text(json.dumps(data, indent=1) + "\n")
    plot_confusion(report, out / "confusion.png", title=f"{Path(args.data).name}: confusion at confidence "
                                                       f"{report.confidence:g}, IoU 0.5 (rows: truth)")
    if args.json:
        _print_json(data)
    else:
        sys.stdout.write(report.summary() + "\n")
        sys.stdout.write(f"report: {out / 'report.json'}; confusion matrix: {out / 'confusion.png'}\n")
    return EXIT_OK



# --------------------------------------------------------------------------------------------------
# mjscan read, mjscan scan, mjscan eval-grouping (vision.grouping: detections to a hand)

_CONTEXT_FLAGS = ("self_drawn", "last_of_kind", "last_tile", "kong_replacement", "robbing_kong", "dealer",
                  "first_turn")


def _add_grouping(commands: Any) -> None:
    read = commands.add_parser(
        "read", help="read the hand in a photo (detector + grouping)",
        description="Detect the tiles in a photo and group them into a hand as the camera guide lays it out: "
                    "the standing row, the winning tile set apart at its right end, each declared meld with its "
                    "claimed tile sideways, concealed kongs with face-down tiles, flowers apart. Prints the hand "
                    "in notation, each tile's confidence, and the questions the layout leaves open.",
        epilog="Exit status 2 when no model is shipped (models/*.onnx), the photo cannot be read, or the reading "
               "leaves questions open.")
    read.add_argument("photo", metavar="PHOTO", help="a photo file (JPEG, PNG, HEIC, ...)")
    read.add_argument("--json", action="store_true",
                      help='print {"detection": ..., "reading": ...} (the spec\'s detection JSON and the reading)')
    read.add_argument("--model", metavar="PATH", help="the ONNX model (default: models/detector.onnx)")
    read.add_argument("--fast", action="store_true", help=FAST_HELP)
    read.add_argument("--conf", type=float, default=None, metavar="C", help="confidence threshold (default 0.25)")
    read.add_argument("--draw", metavar="OUT.jpg", help="also write the photo with the groups drawn, coloured by meld")
    read.set_defaults(run=cmd_read)

    scan = commands.add_parser(
        "scan", help="read the hand in a photo and score it",
        description="Read the hand in a photo (as 'mjscan read') and score it under a rule set. Questions the "
                    "layout leaves open are answered with --answer ID=CHOICE (a choice's label, its start, or its "
                    "number from 1).")
    scan.add_argument("photo", metavar="PHOTO", help="a photo file")
    scan.add_argument("--rules", default="mcr", metavar="RULES", help="rule set (default: mcr)")
    scan.add_argument("--json", action="store_true", help='print {"detection", "reading", "hand", "score"} as JSON')
    scan.add_argument("--model", metavar="PATH", help="the ONNX model (default: models/detector.onnx)")
    scan.add_argument("--fast", action="store_true", help=FAST_HELP)
    scan.add_argument("--conf", type=float, default=None, metavar="C", help="confidence threshold (default 0.25)")
    scan.add_argument("--answer", action="append", default=[], metavar="ID=CHOICE",
                      help="answer one of the reading's questions (repeat for several)")
    scan.add_argument("--no-input", action="store_true",
                      help="never ask the open questions at the terminal: name them and exit with status 2, as "
                           "without a terminal")
    for flag in _CONTEXT_FLAGS:
        scan.add_argument(f"--{flag.replace('_', '-')}", action="store_true", dest=flag,
                          help=f"context: {flag}")
    scan.add_argument("--seat", default=None, metavar="WIND", help="seat wind E, S, W or N (default E)")
    scan.add_argument("--prevalent", default=None, metavar="WIND", help="prevalent wind E, S, W or N (default E)")
    scan.set_defaults(run=cmd_scan)

    evaluate = commands.add_parser(
        "eval-grouping", help="measure the grouping on rendered photos (mjscan synth sidecars)",
        description="Group every photo of a renderer folder from its TRUE boxes (the sidecars' tile boxes, "
                    "classes and sideways flags; face-down tiles as 'back'), and with --detector from the shipped "
                    "detector's boxes, and report the share of hands read exactly (standing tiles, every meld's "
                    "kind, tiles, concealed flag and direction, flowers, winning tile, no question left) with "
                    "counts per error type.")
    evaluate.add_argument("data", metavar="DIR", help="a folder made by 'mjscan synth' (sidecars/, images/)")
    evaluate.add_argument("--detector", action="store_true",
                          help="also read with the detector in the loop, with and without reading unsure tiles "
                               "again (vision.repair)")
    evaluate.add_argument("--sideways-rule", action="store_true",
                          help="also read the true boxes with the sideways flags the detector's box-shape rule "
                               "(vision.detector.mark_sideways) gives them, instead of the true flags")
    evaluate.add_argument("--model", metavar="PATH", help="the ONNX model for --detector")
    evaluate.add_argument("--each-alone", action="store_true", help="with --detector: " + EACH_ALONE_HELP)
    evaluate.add_argument("--every-crop", action="store_true", help="with --detector: " + EVERY_CROP_HELP)
    evaluate.add_argument("--cache", metavar="FILE",
                          help="with --detector: keep the detector's answers for these photos in FILE (JSON), and "
                               "read them from it the next time, so that a change to the grouping is measured in "
                               "seconds; a FILE made by other models or options is started afresh "
                               "(vision.reading_cache)")
    evaluate.add_argument("--box-noise", type=float, default=0.0, metavar="F",
                          help="with --sideways-rule: also read the true boxes moved at random by F of their size "
                               "(e.g. 0.02), with the detector's sideways rule, to mimic a detector's imprecision")
    evaluate.add_argument("--rules", action="append", default=[], metavar="RULES",
                          help="also count, under this rule set (repeat, or 'all'), the hands paid right with no "
                               "question that changes the score (vision.question_stakes), those asked, and those "
                               "paid wrong without a question; each hand scored with its true context")
    evaluate.add_argument("--limit", type=int, metavar="N", help="only the first N photos")
    evaluate.add_argument("--json", action="store_true", help="print the report(s) as JSON")
    evaluate.set_defaults(run=cmd_eval_grouping)


def _shipped_model(model: str | None) -> str | None:
    """The model path to use, or None (with a message) when there is none."""
    from pathlib import Path

    if model is not None:
        if not os.path.isfile(model):
            _err(f"No model at '{model}'.")
            return None
        return model
    models = Path(__file__).resolve().parent.parent / "models"
    preferred = models / "detector.onnx"
    # classifier*.onnx is the detector's second stage (the tile classifier), not a detector
    found = [preferred] if preferred.is_file() else sorted(
        m for m in models.glob("*.onnx") if not m.stem.startswith("classifier"))
    if not found:
        _err(f"No detector model is shipped yet: {models} holds no .onnx file. Train one with 'mjscan train' "
             "(see models/README.md) or pass --model PATH.")
        return None
    return str(found[0])


def _read_photo(args: argparse.Namespace) -> tuple[Any, Any, Any] | None:
    """(image, detections, reading), or None after saying why."""
    model = _shipped_model(args.model)
    if model is None:
        return None
    try:
        detector = _load_detector(model, args.conf, args.fast)
    except InputError as error:
        _err(error.message)
        return None
    from vision.detector import DetectorError, load_image
    from vision.photo_reading import read_photo

    try:
        image = load_image(args.photo)
        detections, reading = read_photo(detector, image)
    except DetectorError as error:
        _err(str(error))
        return None
    return image, detections, reading


def format_reading(reading: Any, questions: bool = True, settled: Iterable[str] = (), rules: str = "") -> str:
    """The hand in notation, each tile with its confidence, and the open questions (unless ``questions`` is
    false: they are about to be asked one at a time); those ``settled`` say that no answer changes the score under
    ``rules`` (``vision.question_stakes``)."""
    from scorer.notation import format_hand

    lines = [f"hand: {format_hand(reading.hand)}" if reading.hand is not None else "hand: (not read)"]
    for tile in reading.tiles:
        marks = "".join([" sideways" if tile.sideways else "", " face-down" if tile.face_down else "",
                         " on top" if tile.on_top else ""])
        lines.append(f"  {tile.group:<10} {tile.position:>2}  {tile.code:>4}  {tile.confidence:.2f}{marks}")
    for meld in reading.melds:
        lines.append(f"  meld {' '.join(t.code for t in meld.meld.tiles)}: {meld.how} (confidence {meld.confidence:.2f})")
    for ignored in reading.ignored:
        lines.append(f"  ignored detection {ignored.detection} ({ignored.code}): {ignored.reason}")
    for fix in getattr(reading, "corrections", ()):
        why = f"the odds against a tile {fix.ratio:.2f}" if fix.dropped \
            else f"its confidence {fix.ratio:.2f} of the first reading's"
        lines.append(f"  read again: detection {fix.detection}, {fix.describe()} ({why})")
    lines += [f"note: {note}" for note in reading.notes]
    lines += [f"photo advice: {advice.message}" for advice in getattr(reading, "advice", ())]
    settled = set(settled)
    for q in reading.questions if questions else ():
        lines.append(f"question {q.id}: {q.text}"
                     + (f" (no answer changes the score under {rules})" if q.id in settled else ""))
        for n, choice in enumerate(q.choices, 1):
            lines.append(f"    {n}) {choice.label}")
    return "\n".join(lines) + "\n"


def cmd_read(args: argparse.Namespace) -> int:
    done = _read_photo(args)
    if done is None:
        return EXIT_INVALID
    image, detections, reading = done
    if args.json:
        _print_json({"detection": detections.to_dict(), "reading": reading.to_dict()})
    else:
        sys.stdout.write(format_reading(reading))
    if args.draw:
        from vision.detector import DEFAULT_CONFIDENCE
        from vision.layout_draw import save_reading

        try:
            save_reading(image, detections, reading, args.draw,
                         threshold=DEFAULT_CONFIDENCE if args.conf is None else args.conf)
        except (OSError, ValueError) as error:
            _err(f"Cannot write the drawing '{args.draw}': {error}.")
            return EXIT_INVALID
    return EXIT_OK if reading.hand is not None and not reading.questions else EXIT_INVALID


def _scan_context(args: argparse.Namespace) -> dict[str, Any]:
    context: dict[str, Any] = {flag: True for flag in _CONTEXT_FLAGS if getattr(args, flag, False)}
    if args.seat is not None:
        context["seat_wind"] = args.seat
    if args.prevalent is not None:
        context["prevalent_wind"] = args.prevalent
    return context


def _parse_answers(items: list[str]) -> dict[str, str]:
    answers = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError("bad_answer", f"--answer takes ID=CHOICE, not {item!r}.")
        answers[key.strip()] = value.strip()
    return answers


def _at_a_terminal() -> bool:
    """Whether a person runs the command: its input and output are a terminal (not a pipe, a file or a test)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_scan(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from scorer.hand import Context
    from vision.question_stakes import weigh_questions

    try:
        rule_set = get_rule_set(args.rules)
        answers = _parse_answers(args.answer)
        context = Context.from_dict(_scan_context(args))
    except KeyError as error:
        _err(error.args[0])
        return EXIT_INVALID
    except (InputError, HandError) as error:
        _err(error.message)
        return EXIT_INVALID
    done = _read_photo(args)
    if done is None:
        return EXIT_INVALID
    _image, detections, reading = done

    def in_context(read: Hand) -> Score:
        return rule_set.score(replace(read, context=context))

    try:
        hand, open_questions = reading.answer(answers)
        stakes = weigh_questions(reading, answers, in_context)
    except ValueError as error:
        _err(str(error))
        return EXIT_INVALID
    if (hand is None or open_questions) and not stakes.all_settled and not args.json and not args.no_input \
            and _at_a_terminal():
        from mjscan.asking import as_options, ask_open_questions

        sys.stdout.write(format_reading(reading, questions=False))
        def scored(question: Any, choice: Any, given: dict[str, str]) -> str:
            """What the hand this choice leads to (the other open questions as read) scores, where it is whole and
            a valid win: as the page shows it (server.scanning.weigh)."""
            try:
                chosen, _ = reading.answer({**given, question.id: choice.label})
                result = in_context(chosen) if chosen is not None else None
            except (ValueError, HandError):
                return ""
            return f" ({result.total} points)" if result is not None and result.valid else ""

        # only the questions whose answer can change the score are asked, each choice with its score
        told = ask_open_questions(reading, answers, input, sys.stderr.write,
                                  lambda given: weigh_questions(reading, given, in_context).changing, scored)
        hand, open_questions = reading.answer(told)
        stakes = weigh_questions(reading, told, in_context)
        if told != answers:
            _err(f"to give the same answers without being asked: {as_options(told)}")
    if stakes.all_settled:
        # every open question pays the same whatever its answer: scored without asking, and said so
        hand, open_questions = stakes.hand, ()
        for question in reading.questions:
            if question.id in stakes.settled:
                _err(f"not asked: {question.text} (question {question.id}): every answer scores the same under "
                     f"{rule_set.name}")
    if hand is None or open_questions:
        if args.json:
            _print_json({"detection": detections.to_dict(), "reading": reading.to_dict(), "hand": None, "score": None,
                         "questions_changing_the_score": list(stakes.changing)})
        else:
            sys.stdout.write(format_reading(reading, settled=stakes.settled, rules=rule_set.name))
        _err("the photo leaves questions open: answer them with --answer ID=CHOICE"
             if open_questions else "no hand could be read from the photo")
        return EXIT_INVALID
    hand = replace(hand, context=context)
    result, internal = _score_text(rule_set, lambda: hand)
    if internal:
        _err(result.error.message)
        return EXIT_INTERNAL
    if args.json:
        from scorer.codec import hand_to_dict

        _print_json({"detection": detections.to_dict(), "reading": reading.to_dict(), "hand": hand_to_dict(hand),
                     "score": result.to_dict(), "settled_questions": list(stakes.settled)})
    else:
        from scorer.notation import format_hand

        sys.stdout.write(f"hand: {format_hand(hand)}\n")
        if result.items or result.settlement or result.valid:
            sys.stdout.write(format_table(result, title=getattr(rule_set, "title", rule_set.name)))
        for advice in reading.advice:  # the score stands; a second photo would be read more surely
            _err(f"photo advice: {advice.message}")
    if not result.valid:
        _err(result.error.message if result.error is not None else "The hand is not valid.")
        return EXIT_INVALID
    return EXIT_OK


def cmd_eval_grouping(args: argparse.Namespace) -> int:
    import functools

    from vision.grouping import group
    from vision.layout_eval import evaluate_folder, without_alternatives
    from vision.photo_reading import read_photo

    if not os.path.isdir(os.path.join(args.data, "sidecars")):
        _err(f"'{args.data}' has no sidecars/ folder: render one with 'mjscan synth --kinds guide ...'.")
        return EXIT_INVALID
    if args.cache and not args.detector:
        _err("--cache keeps the detector's answers: it goes with --detector.")
        return EXIT_INVALID
    try:
        names = list(RULE_SETS) if "all" in args.rules else list(dict.fromkeys(args.rules))
        scorers = {name: get_rule_set(name).score for name in names}
    except KeyError as error:
        _err(error.args[0])
        return EXIT_INVALID
    reports = {}
    try:
        reports["true_boxes"] = evaluate_folder(args.data, group, limit=args.limit, scorers=scorers)
        if args.sideways_rule:
            reports["true_boxes_sideways_rule"] = evaluate_folder(args.data, group, limit=args.limit,
                                                                  sideways_rule=True)
            if args.box_noise:
                reports["noisy_boxes_sideways_rule"] = evaluate_folder(args.data, group, limit=args.limit,
                                                                       sideways_rule=True, box_noise=args.box_noise)
        if args.detector:
            model = _shipped_model(args.model)
            if model is None:
                return EXIT_INVALID
            detector = _load_detector(model, None, each_alone=args.each_alone, every_crop=args.every_crop)
            cache = None
            if args.cache:
                from vision.reading_cache import ReadingCache, detector_fingerprint, photo_key

                cache = ReadingCache.open(args.cache, detector_fingerprint(detector))
                keyed = functools.lru_cache(maxsize=None)(photo_key)  # each photo hashed once, asked for twice
                if cache.stale:
                    print(f"'{args.cache}' held another detector's answers (other models or options): "
                          "started afresh.", file=sys.stderr)
            found: dict[str, Any] = {}  # each photo detected once, read both ways
            completed: dict[str, Any] = {}

            def detect(path):
                if str(path) not in found:
                    found[str(path)] = detector.detect(path) if cache is None else \
                        cache.detections(keyed(path), lambda: detector.detect(path))
                return found[str(path)]

            class Unsure:
                """The detector, its boxes under the threshold read from the cache where it has them."""

                def unsure_boxes(self, photo, reported):
                    return cache.unsure(keyed(photo), lambda: detector.unsure_boxes(photo, reported))

                def detect_closer(self, photo, reported):
                    return cache.closer(keyed(photo), lambda: detector.detect_closer(photo, reported))

            def read(path):
                # as `mjscan read` reads a photo (vision.photo_reading.read_photo): where the hand lacks a tile, with
                # a box under the threshold added; grouping the detections it answers gives its hand
                if str(path) not in completed:
                    completed[str(path)] = read_photo(detector if cache is None else Unsure(), path, detect(path))[0]
                return completed[str(path)]

            try:
                reports["detector"] = evaluate_folder(args.data, group, detect=read, limit=args.limit, scorers=scorers)
                # the detector's first readings only (its reported tiles, no alternatives: no tile read again, none
                # added): what vision.repair and vision.photo_reading add is the difference between the two reports
                reports["detector_first_readings"] = evaluate_folder(
                    args.data, group, detect=lambda path: without_alternatives(detect(path)), limit=args.limit)
            finally:  # what was read is kept, even from a run cut short
                if cache is not None:
                    cache.save()
                    print(f"'{args.cache}': {cache.hits} answers read from it, {cache.misses} from the detector.",
                          file=sys.stderr)
    except InputError as error:
        _err(error.message)
        return EXIT_INVALID
    except ValueError as error:
        _err(str(error))
        return EXIT_INVALID
    if args.json:
        _print_json({name: report.to_dict() for name, report in reports.items()})
    else:
        titles = {"true_boxes": "from the true boxes",
                  "true_boxes_sideways_rule": "from the true boxes, sideways flags by the detector's rule",
                  "noisy_boxes_sideways_rule": f"from the true boxes moved by {args.box_noise:g} of their size, "
                                               "sideways flags by the detector's rule",
                  "detector": "with the detector in the loop",
                  "detector_first_readings": "with the detector in the loop, its first readings only "
                                             "(no tile read again)"}
        for name, report in reports.items():
            sys.stdout.write(report.summary(titles[name]) + "\n")
    return EXIT_OK


if __name__ == "__main__":  # (last: ``python -m mjscan.cli`` runs main once every command is defined)
    sys.exit(main())
