"""The danish rule set: seed 002 (a Danish rule sheet of British style), read in the original.

Every item of the book is a small named rule beside its value in ``book.py``; the engine that reads a
hand is ``engine.py``; who pays whom is ``settlement.py``; the context keys and club options are in
``options.py``. Any player's hand is scored: the winner's mahjong, a fishing hand ("fiske", one tile
from mahjong, see ``fishing_tiles``), or a hand that is neither.

>>> from scorer import parse_hand
>>> result = RULE_SET.score(parse_hand("123m 456p 789s [5'55m] 9s +9s | seat=S"))
>>> for item in result.items:
...     print(item.name, item.points or f"x{item.doubles}")
Pung af 2...8, åben 2
At gå mahjong 20
At gå mahjong ved at færdiggøre spurvens hoved 2
Ren hånd x2
>>> result.base, result.doubles, result.total  # (2 + 20 + 2) x 2**2
(24, 2, 96)
>>> [t.code for t in fishing_tiles(parse_hand("123m 456p 789s [5'55m] 9s | seat=S"))]
['6s', '9s']

How the book was read
=====================

Where the sheet is short or ambiguous, this is the reading taken, with the line it rests on. Where
clubs genuinely differ it is an option (a context key, see ``options.py``); the default is the reading.

1. East. "1000 er det maksimale pointantal for alle normale hænder (2000 for øst)." East's limit is
   twice everyone's because East pays and receives double: East's hand carries one more doubling
   ("Øst betaler og modtager dobbelt", so ``total = base * 2**doubles`` capped at 2000), and every
   payment to or from East is doubled in settlement. "Himlens ynde ... 2000" is East's own hand, so
   its 2000 is already East's figure (1000 like "Jordens ynde", doubled). Other special hands are
   doubled for East like any hand (they are not "normale hænder", so no cap). Option
   ``danish_east_double`` (default true); off, East's normal hands are merely capped at 2000 and nobody
   pays double. East is the player whose seat wind is East (the book's "øst"); the ``dealer`` key is
   not read.
2. "Ublandede hænder" / "Blandede hænder". The table's two headings class its rows: every row under
   "Blandede" needs two or three suits, and every row under "Ublandede" that names its tiles uses one
   suit at most. So the rows under "Ublandede" that leave tiles free ("Kun konger", "Kinesiske ulige",
   "Par", "Himmelske tvillinger", the free set and pair of "Tre store vismænd", ...) may hold numbered
   tiles of one suit only (honours as the row allows). Option ``danish_unmixed_one_suit`` (default
   true); off, each row is read by its own words only.
3. "Én række" (one doubling) is a hand whose numbered tiles are all of one suit; honours may be there.
   The book calls the suits "rækker" ("En 1'er og 9'er fra hver række") and honours are no suit.
4. "Ren hånd** (ingen drager eller vinde)" (two doublings): as the book's own parenthesis says, a hand
   with no dragons and no winds. A one-suit hand without honours has both "Én række" and "Ren hånd"
   (three doublings). Option ``danish_clean_hand``: ``no_honours`` (default) or ``one_suit`` (one suit
   and no honours). The "**" after three items points to a footnote the sheet does not have; ignored.
5. "Kun officerer** (1'ere, 9'ere, drager og vinde)": every tile a 1, a 9, a dragon or a wind.
6. "Skjult mahjong**, to fordoblinger ekstra. Alle brikker skal trækkes fra muren, ingen kong'er,
   ingen begrænsninger på antallet af chows. For at fiske skal man have mindst to chows. Hvis hånden
   ikke giver point tildeles 10 point." Two doublings for a hand with no melds at all (no kong either,
   concealed or not) whose last tile was drawn from the wall (not robbed, not claimed). A fishing hand
   earns them with no melds and at least two chows held (a chow the awaited tile would complete is not
   held). "Hvis hånden ikke giver point": when the hand's points are 0, it gets 10 points. Only a
   fishing hand can have 0 points: a mahjong has the 20 for going mahjong, and a concealed one is drawn
   from the wall, two more.
7. "Fiske eller mahjong". A fishing hand earns the hand-pattern doublings ("Én række", "Ingen chows",
   "Ren hånd", "Kun officerer", "Skjult mahjong") that the best mahjong it fishes for would have; its
   points are those it holds. The doublings for how a mahjong is made (last tile, loose tile, robbing a
   kong) and the 20 for mahjong are for mahjong only. "Altid en fordobling" counts for every hand.
8. Any hand that has not gone mahjong scores its melds, its concealed pungs (three alike among the
   standing tiles) and every pair it holds, from the point table and "To point". The footnote "†1000
   point hvis man har en p/k i hver drage, selv om man ikke fisker" gives 1000 to such a hand holding
   a pung or kong of every dragon.
9. Open and concealed sets. "åben | skjult": a pung is concealed when all its tiles were drawn from
   the wall; a pung completed by a claimed winning tile is open (the book's own words for concealment:
   "Alle brikker skal trækkes fra muren"). A concealed kong (declared face down) is concealed.
10. "s:" and "å:" in the special-hands table. "å: V" means the hand may be open or concealed, worth V
    either way; "s: V" that it must be concealed (no exposed meld; a concealed kong is allowed); "s: V1
    å: V2" that it is worth V1 concealed and V2 open. The winning tile of an "s:" hand may be claimed:
    "Blandede pungen" is marked "s:" and says besides "Alle brikker skal trækkes fra muren", which would
    add nothing if "s:" already meant it; so only "Blandede pungen" needs its last tile drawn. A fishing
    hand gets a row's "Fiske" value under the same open/concealed condition.
11. Rows that say "pung"/"pungen" ("Forblæste drager: 2 pungen i drager", "Blandede pungen",
    "Løb, pung & par: en pung") take pungs only; rows that say "p/k" take pungs or kongs.
12. Pairs hands ("7 par"): four alike count as two pairs. The book needs it: "Spurvens reservat: 2 par
    i 1 bambus", and "Jade par" has only six kinds of green tiles for seven pairs.
13. Colours. Green bamboos are 2, 3, 4, 6, 8 ("Spurvens reservat: 2 par i 1 bambus, et par i hver grøn
    bambus" makes seven pairs with five green kinds, the 1 apart). Red bamboos are 1, 5, 7, 9 (the
    red-painted ones; option ``danish_red_bamboo`` = ``579`` leaves out the bird on the 1).
14. Row by row: "Kinesiske ulige ... i de ulige": every tile an odd number (1, 3, 5, 7, 9).
    "Himlens porte": 111 and 999 and 2...8 of one suit with one of 2...8 paired. "Løb, pung & par":
    123 456 789 of one suit, a pung, a pair. "Rød lanterne": 1...7 of one suit with one paired, a p/k
    of Red and of the own wind; open, its melds may be those p/k or chows inside the run. "Snoende
    slange": 1...9 of one suit and one of each wind, one tile paired. "Strikke": exactly two suits with
    the same ranks in both (doublets may repeat). "Guldsmed": one of each dragon, a p/k in each suit, a
    pair of suit tiles. "Kun konger": four declared kongs and a pair.
15. A hand that is a special hand and also a normal hand scores the higher of the two (on a tie the
    special hand; between two special rows of the same value the later, narrower row).
16. "Særlige hænder": "Himlens ynde" is East going mahjong on the dealt tiles (``first_turn``);
    "Jordens ynde" another player going mahjong on East's first discard (``danish_east_first_discard``);
    "At plukke blommeblomsten fra taget" mahjong on a loose tile (``kong_replacement``) that is the 5 of
    dots; "At hente månen fra bunden af havet" mahjong drawing the 1 of dots as the wall's last tile
    (``last_tile`` and self-drawn). They have no fishing value.
17. "To point": "Par af egen vind" and "Par af rundens vind" both count when the own wind is the
    round's wind (four points), as "Pung/kong af egen vind" and "... af rundens vind" give two
    doublings. "At gå mahjong det eneste mulige sted": the hand before its last tile was fishing for
    that one tile only. "... med en sten fra væggen": the last tile was drawn (the loose tile after a
    kong is drawn from the wall too). "... ved at færdiggøre spurvens hoved": the last tile completed the
    pair. "At gå mahjong med sidste brik fra muren" needs the last tile drawn (``last_tile`` and
    ``self_drawn``); the last discard claimed is not it.
18. Limits and rounding: "1000 er det maksimale pointantal for alle normale hænder"; special hands
    have their own values. The book rounds nothing; neither does this rule set. The book has no flowers
    or seasons: they score nothing (a note says so).
19. Penalties. "En spiller, der har for mange brikker, får *ingen* point og kan ikke gå mahjong":
    invalid ``too_many_tiles``, total 0. "En spiller, der har for få brikker, kan ikke gå mahjong eller
    opnå point for at fiske. Ellers optælles point som sædvanligt": no fishing, points as usual (a
    winner: invalid ``too_few_tiles``, a false mahjong). A ``Hand`` cannot hold a wrong number of tiles,
    so a hand says it with ``danish_wrong_count`` (too_many / too_few), and ``score_tiles`` scores loose
    tiles of any number. A false mahjong (``not_mahjong``): "... betale 500 point til hver af de
    spillere, der vælger at afsløre deres hånd. Herefter tages alle brikker tilbage på hånden og spillet
    fortsætter som sædvanligt": the caller pays 500 to each player marked ``danish_revealed`` (not doubled
    for East: the book names a fixed sum), and nothing else is paid.
20. Payments (the book names none beyond the above): every other player pays the winner the winner's
    value; the others pay each other the difference of their values, since the fishing column is
    worth something only there (``danish_losers_settle``, default true); the winner pays nobody; the
    discarder pays no more than anyone. A drawn deal settles like the losers do
    (``danish_draw_settles``, default true; off: nobody pays), for the book counts every hand and makes
    no exception for a draw. 3 or 4 players alike.
"""

from __future__ import annotations

from scorer.hand import Hand
from scorer.result import Score
from scorer.table import Payment, Table
from scorer.tiles import Wind

from scorer.danish import book
from scorer.danish.engine import fishing_tiles, is_fishing, is_mahjong, score_hand, score_tiles
from scorer.danish.options import CONTEXT_KEYS
from scorer.danish.settlement import settle as _settle

__all__ = ["RULE_SET", "DanishRules", "book", "fishing_tiles", "is_fishing", "is_mahjong", "score_hand",
           "score_tiles"]


class DanishRules:
    name = "danish"
    title = "Danish rules (special hands for mahjong and for fishing, 1000 limit, 2000 for East)"
    context_keys = CONTEXT_KEYS
    scores_every_hand = True

    def score(self, hand: Hand) -> Score:
        """Score any player's hand: a mahjong, a fishing hand or any other (never raises for a bad hand)."""
        return score_hand(hand)

    def is_mahjong(self, hand: Hand) -> bool:
        """Four sets and a pair, or the shape of a special hand of the table (with its open/concealed rule)."""
        return is_mahjong(hand)

    def settle(self, table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
        return _settle(table, scores)


RULE_SET = DanishRules()
