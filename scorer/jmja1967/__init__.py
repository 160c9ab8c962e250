"""Japan Mah-Jong Association rules of 1967, as the Finnish rule page of seed 004 gives them
("Pelisäännöt Japanin Mah-jong-yhdistyksen virallisten sääntöjen mukaan 1967").

The points: basic points ("peruspisteet": mahjong 20, the groups by the table, 2 for the mahjong tile from
the wall, 2 for the only possible tile, 10 for a concealed hand won on a claimed tile), doubled once per
doubling ("kertomiset"), rounded to tens, at most 500; a limit hand ("maksimikädet") is worth 500.
Every item is a named rule beside its value in ``catalog``; the payment tables are in ``settlement``.

>>> from scorer import parse_hand
>>> result = RULE_SET.score(parse_hand("123m 456m 789m 5z [7'77z] +5z | seat=S"))
>>> for item in result.items:
...     print(item.name, item.points or item.doubles, item.count)
Mahjong 20 1
Pair of dragons, own wind or round wind 2 1
Pung of dragons, own wind or round wind, exposed 4 1
Only possible tile 2 1
Pung or kong of dragons, own wind or round wind 1 1
Three consecutive chows 1-9 of one suit 1 1
Half flush 1 1
>>> result.base, result.doubles, result.total   # 28 x 2 x 2 x 2 = 224, to the nearest ten
(28, 3, 220)

Choices where the book is ambiguous (each with the line it rests on; docs/rules/jmja1967.md has more)
------------------------------------------------------------------------------------------------------

1. The group table. "pari pong kong / tav.käd.tav.käd. / tavalliset -24 816 / reunatiilet, vieras tuuli
   -48 1632 / lohikäärmeet, oma tuuli, erän tuuli 248 1632 / kaksoistuuli 448 1632". The five cells of a row
   are pair, pong exposed ("tav." = tavallinen), pong concealed ("käd." = kädestä), kong exposed, kong
   concealed; each row's digits split one way only into a pair cell and two doubling pairs: ordinary
   -/2/4/8/16, terminals and other winds -/4/8/16/32, dragons and own or round wind 2/4/8/16/32, the
   double wind 4/4/8/16/32.
2. "viimeinen tiili muurista 2" (the list) and "mahjongtiilikädestä2" (the table) are one item: 2 points
   when the mahjong tile was drawn (self_drawn; the dead wall's replacement tile is drawn too).
3. Concealed hand. "mahjong kädestä, viimeinen tiili huudettu 10 (viimeinenkin kädestä, ks. kertomiset)"
   and, among the doublings, "mahjong kädestä 1 (viimeinen huudettu, ks. peruspisteet)": a hand with no
   exposed meld (concealed kongs allowed) won on a claimed tile gets 10 basic points; won on a drawn tile,
   1 doubling instead. Never both.
4. A pong completed by a claimed mahjong tile is exposed ("tav.") for the group table, the pong game and
   the hidden treasure: the book calls a group concealed when it was got "kokonaan kädestä" (entirely from
   the hand: "kong, joka saadaan kokonaan kädestä (a, b)"). Clubs differ: option
   ``jmja1967_claimed_pong_concealed`` (default false). The hand as a whole stays "from the hand" (item 3).
5. "ainoa mahdollisuus" (only possible tile) is one tile kind: the book counts "mahdollisuus" by kinds
   ("mahjong-tiileksi on siten joko 1 tai 13 mahdollisuutta", "9 mahdollisuutta, 'porttia'"), so the
   2 points go to a hand that, before its last tile, waited on that one tile only (scorer.waits' rule).
6. Rounding: "kaikki pisteet pyöristetään lähimpään kymmeneen" — to the NEAREST ten, after the doublings
   ("3. pyöristys, lopulliset pisteet" comes after "2. kertomiset"); points are always even, so no tie
   arises (a 5 would go up). Option ``jmja1967_rounding`` = ``up`` for clubs that round up.
7. The maximum: "pisteiden maksimi on 500 (kaikki pisteet)" caps the rounded total; a limit hand is 500.
8. The worthless hand ("arvoton käsi": "4 tsaoa; pari ei ole kunnianarvoisia (saa olla vieras tuuli);
   viimeinen tiili ei ole ainoa mahdollisuus; viimeinen tiili ei ole muurista, paitsi jos muut tiilet ovat
   kaikki kädestä = peruspisteet joko 20 tai 30"): the pair may be a simple, a terminal or an other wind,
   not a dragon, own or round wind; an exposed hand must win on a claimed tile (20), a concealed one may
   win either way (30 on a claimed tile, 20 drawn). As the book says the basic points are then 20 or 30,
   the drawn tile's 2 points are not added; "mahjong kädestä" still doubles a drawn concealed one.
9. Doublings add up: each row that describes the hand counts (the book prices the double wind's pong 2,
   own wind's and round wind's 1 each, and nowhere says one row absorbs another). So "kaikki arvotiiliä"
   and "joka yhdistelmässä arvotiiliä" both count for an all-terminals-and-honours hand; the pong game's
   rows are one choice by how many pongs are concealed (0-2: 1, 3: 2, 4: the hidden treasure).
   The half flush "yhtä maata + kunnianarvoisia" needs honours, the full flush "yhtä maata" has none, so
   they never meet. "joka yhdistelmässä" counts the pair too: the book lists the pair among the groups
   ("Ryhmät: tsao, pong, kong, pari").
10. "3 pongia tai kongia kädestä + 1 tsao 1" is its own row (a pong game has no chow): three concealed
    pongs or kongs and one chow.
11. The last tile: "mahjongtiili on muurin viimeinen tiili 1" and "--- viimeinen poispantu tiili 1" are the
    spec's ``last_tile``: the wall's last tile when self-drawn, the last discard when claimed.
12. Heavenly and earthly blessing use the spec's ``first_turn``: East ("jakaja = itä": ``dealer`` or seat
    East) with a self-drawn hand and no meld is the heavenly blessing ("itä tekee mahjongin jaosta");
    another player with no meld is the earthly blessing ("1. kierroksella idän poispanosta tai muurista").
13. Nine gates: "14. tiilen on oltava mikä tahansa näistä kolmestatoista ... kivellä istutaan siten, että
    mahjong-tiili voi olla mikä tahansa": no meld, and the 13 tiles before the mahjong tile are exactly
    1112345678999 of one suit; the 14th may be claimed ("Vain 14. tiilen voi huutaa").
14. A mahjong is four sets and a pair or the thirteen orphans; the book names no seven pairs.
15. Any player's hand is scored. The book pays only the winner ("vain voittajalle maksetaan"; "Jaon
    jälkeen voittajan pisteet lasketaan ... Häviäjät maksavat hänelle"), so ``scores_every_hand`` is
    false: a table is settled from the winner's score alone. ``score()`` still scores a non-winner's 13
    tiles for the page: its declared melds plus the standing pongs, chows and one pair that score most,
    by the group table, doubled by its lucky groups ("onnelliset ryhmät") only (the other doublings are
    about a mahjong: its ways, its combinations, its composition), rounded and capped the same way.
16. Payments: "poispanija / itse kukin / itä" — four players: East claims 6 (discarder), East draws 2
    (each), another claims 4 (discarder), another draws 1 (each) and 2 (East). Three players ("poispanija
    / itä / itse kukin"): 4; 2 each; 3; and "-2-" for another's drawn mahjong, read as East 2 and the other
    player 1, because the discarder pays "myös muiden puolesta" and that row's discarder pays 3. Option
    ``jmja1967_three_player_self_draw`` = ``east_2_only`` follows the cell literally.
17. With three players the absent seat's wind is out of the game ("1. jaossa poistetaan länsituulet.
    Pelaajat ovat itä, etelä ja pohjoinen."): a hand holding it is refused at settlement.
18. Fines: "väärä huuto: 100 p", "tiili on otettu väärästä paikasta: 50 p", "sakot saa jaon loppuessa
    voittaja", returned after a drawn deal. Each player's context counts them (``jmja1967_false_calls``,
    ``jmja1967_wrong_draws``); the settlement pays them to the winner.
19. Robbing the kong is a claim from the player whose kong was robbed: at a table, name that player as
    the discarder ("Jos joku pelaaja saa muurista tiilen, jonka lisää neljänneksi ... saa kivellä istuva
    tehdä mahjongin tällä tiilellä").
"""

from __future__ import annotations

from scorer.hand import Hand
from scorer.jmja1967.engine import NAME, is_mahjong, score_hand
from scorer.jmja1967.options import CONTEXT_KEYS
from scorer.jmja1967.settlement import settle
from scorer.result import Score
from scorer.table import Payment, Table
from scorer.tiles import Wind


class Jmja1967Rules:
    name = NAME
    title = "Japan Mah-Jong Association rules, 1967 (Finnish translation)"
    scores_every_hand = False  # "vain voittajalle maksetaan": a table is settled from the winner's score
    context_keys = CONTEXT_KEYS

    def score(self, hand: Hand) -> Score:
        """The winner's mahjong, or any other player's 13 tiles (scored by their groups)."""
        return score_hand(hand)

    def is_mahjong(self, hand: Hand) -> bool:
        return is_mahjong(hand)

    def settle(self, table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
        return settle(table, scores)


RULE_SET = Jmja1967Rules()
