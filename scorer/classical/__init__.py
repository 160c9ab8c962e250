"""Hungarian classical rules after E. Hergár (1925), as seed 001 gives them: ``classical``.

Source: seed 001 (a Hungarian summary of Hergár Emil, *MAH-JONG játék ismertetése*, Gallwitz Testvérek,
Budapest 1925), OCR-damaged; quotations below have their diacritics restored. Every item of its
accounting ("IV. Az elszámolás") is a named rule with its value in ``catalog.py``; the hand shapes are in
``forms.py``; payments in ``settlement.py``; the context keys and club options in ``options.py``.

Every player's hand is scored. A winner (14 tiles and a winning tile): figure points, flowers, 20 for
mahjong (+2 when not won by robbing), times 2 per doubling, and the extra hands' points. A non-winner
(13 tiles): its figures, concealed pungs, scoring pairs and flowers, and the doublings for its dragon and
own-wind figures. ``total = base * 2 ** doubles`` (+ the extra hand's points); no limit, no rounding.

Readings chosen where the book leaves room (option names in brackets):

1. Robbing ("rablás") is claiming a discard: "Az ellenfelek éppen eldobott kövét bármelyik játékos felveheti
   (elrabolhatja)". So "+ 2, ha nem rablással nyert" is won on a self-drawn tile (``self_drawn``); a tile
   taken from another player's kong (``robbing_kong``) is robbed too.
2. The two columns of the figure table are "kirakva / kézben, ill. rablással / rablás nélkül" (laid out /
   in hand, or with / without a robbed tile), and "Az elrabolt követ a jelzett figurában ki kell tenni az
   asztalra": a pung completed by the robbed winning tile is exposed. When the tile can complete another
   figure instead, the better reading is taken.
3. Kongs: "A rabolt köves Kong is a felét éri ..., mint a kézből kirakott. A Kong középső két kövének
   lefordítása jelzi, hogy az adott Kong duplát ér." A kong holding a claimed tile (an exposed kong, also
   one made by adding a tile to an exposed pung) scores the left column (8 / 16); a kong of four tiles
   from the hand, laid with its middle two face down (a concealed kong), the right (16 / 32). The
   introduction's "duplázza a Pong értékét" is loose; the table's figures are used. Four alike standing
   in the hand are a concealed pung and one tile: "A Kongot mindig ki kell rakni".
4. Flowers and seasons: own (its number equals the player's: "1=Kelet, 2=Dél, 3=Nyugat, 4=Észak") 8,
   other 4, for every player.
5. The prevalent (round) wind scores nothing: the tables name only "Pár saját szélből" and "saját Szelekből".
6. "1x, ha: A figurák csak Sárkányokból, vagy saját Szelekből állnak" is one doubling per pung or kong of
   dragons or of the own wind (read for the whole hand it could hardly ever apply); pairs have their 2
   points ("Sárkánypár: 2 / 2") and no doubling. Non-winners get it too.
7. "1x, ha: Egyszínű az összes figura (Sárkánnyal, vagy Széllel zárva)": all figures of one suit, closed by
   a dragon or wind pair, i.e. the only honours are the closing pair [``classical_one_suit_honours=pair``];
   clubs that allow any honours (half flush) choose ``any``. "3x Tiszta Színjáték (Sárkányok és Szelek
   nélküli egyszínjáték)": every tile of one suit. "4x Honőrös győzelem": every tile an honour. These,
   "a kedvezményezett (bankár) nyert" and "az égből" are doublings of the winner only ("zárva", "győzelem",
   "nyert"); "x" counts doublings: 3x multiplies by 8.
8. East or the banker: "A Keleti Szél eme előnyei más szabály szerint a "bankárt" illeti, kit
   kockadobással jelölnek ki" [``classical_banker``: the banker is the player with the ``dealer`` flag;
   by default the favoured player is East, ``seat_wind=E``].
9. The favoured player's win is doubled in the hand ("1x, ha: A kedvezményezett (bankár) nyert") and paid
   double ("ha a játékot megnyeri, mindenkitől duplán kap"): both are written, both apply
   [``classical_favoured_win_doubles``; false counts the privilege once, in the payment].
10. Mahjong "az égből" ("a kedvezményezett, az osztás után azonnal nyer"): the favoured player wins with
    the tiles dealt: ``first_turn`` set on a hand not won by robbing.
11. The extras: "+ az Extra jutalompontok (1000, 2000, 3000, 4000)" follows the doublings as a plus, like
    "20, + 2": the extra hand's points are added to the doubled score [``classical_extras=added``]; clubs
    that play them as limit hands worth exactly their value choose ``limit``. A hand is one game: only its
    highest extra counts (Négybarát is a Szelek játéka with a dragon pair, and scores 3000, not 5000).
12. Seven pairs: "7 db tetszőleges pár": any pairs, four alike counting as two; only standing ("csak
    kézből tehető le"), the last tile may be robbed. "színes": every pair of one suit; "sarkos": every pair
    of terminals or honours; "honőrös": every pair of honours. Their dragon and own-wind pairs earn their
    2 points each ("Sárkánypár: 2 / 2").
13. Világcsoda: one of each of the 13 terminals and honours, and any 14th tile, which is thrown away ("Ekkor
    és csak ekkor, egy kő eldobható"); a pair among them is fine. The hand is written with 14 tiles (the
    shared Hand needs them); 13 such standing tiles without a winning tile get a note.
14. Nagysor: "3 egymást követő sor" is 1-2-3, 4-5-6, 7-8-9 of one suit, with the four winds and one more
    tile of that suit, or with the three dragons and a wind pair. KilencLámpás: 1-1-1, 2 to 8, 9-9-9 of one
    suit and one more tile of it. Both may lie partly declared (their chows, KilencLámpás's pungs): the
    book forbids that only for the pairs game. Zöld-játék: every tile green, in any winning shape.
15. A non-winner scores its declared melds, a concealed pung of each kind it holds three or four of, every
    pair of own wind or dragons it holds ("záró-Pár ... csak 1 db a kész Mahjonggban": only the finished
    hand is limited to one pair), its flowers, and the doubling of 6; no mahjong points, no other doubling.
16. Settlement (``settlement.py``): everyone pays the winner his score ("mindenkitől ... kap"), the
    favoured player receives and pays double. The losers pay each other the differences of their scores
    [``classical_losers_settle``]: the book scores every hand ("Prémium-pontok a győztesnek" sets the
    winner's premium apart) and a loser's score has no other use. A drawn deal: nobody pays. A false
    mahjong: the book sets no penalty, so such a table cannot be settled (error ``not_mahjong``).

>>> from scorer.notation import parse_hand
>>> result = RULE_SET.score(parse_hand("234m 567p 8s [5'55m] [777'z] 4f +8s | seat=S self_drawn"))
>>> [(i.name, i.points or i.doubles, i.count) for i in result.items]
[('Exposed pung of simples', 2, 1), ('Exposed pung of terminals or honours', 4, 1), \
('Other flower or season', 4, 1), ('Mahjong', 20, 1), ('Won without robbing', 2, 1), \
('Pung or kong of dragons or own wind', 1, 1)]
>>> result.base, result.doubles, result.total
(32, 1, 64)
"""

from __future__ import annotations

from scorer.classical.engine import NAME, score_hand
from scorer.classical.forms import is_mahjong as _is_mahjong
from scorer.classical.options import CONTEXT_KEYS
from scorer.classical.settlement import settle_table
from scorer.hand import Hand
from scorer.result import Score
from scorer.table import Payment, Table
from scorer.tiles import Wind


class ClassicalRules:
    name = NAME
    title = "Hungarian classical rules (after E. Hergár, 1925)"
    scores_every_hand = True
    context_keys = CONTEXT_KEYS

    def score(self, hand: Hand) -> Score:
        return score_hand(hand)

    def is_mahjong(self, hand: Hand) -> bool:
        return _is_mahjong(hand)

    def settle(self, table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
        return settle_table(table, scores)


RULE_SET = ClassicalRules()
