"""The reply each judge prompt asks for, as a GBNF grammar (llama.cpp's `grammar` request field).

A judge model whose config sets `constrain_judge_replies` (the small embedded demo model) decodes only
replies of this form, so its verdicts can be read; whether they are right is another matter. Each
grammar produces exactly what the judge's parser (judge/parse.py) reads. Paper-profile judges are
never constrained unless their config says so.
"""
from __future__ import annotations

GPTSCORE = 'root ::= "ANSWER: " ("consistent" | "inconsistent")'
CORRECT_INCORRECT = 'root ::= "Correct" | "Incorrect"'
CORRECT_INCORRECT_LOWER = 'root ::= "correct" | "incorrect"'
JUDGEMENT_01 = 'root ::= "Judgement: " ("1" | "0")'
EXTRACTED_ANSWER = r'root ::= [^\n\[]{1,60} | "[NO ANSWER]"'
TRUE_FALSE = 'root ::= "True" | "False"'
MORPHO_CORRECTNESS = r'''root ::= "{\"reasoning\": \"" [^"\\\n]{0,160} "\", \"is_correct\": " ("0" | "1") "}"'''
# A root and up to three children with fixed ids: a tree judge.tot can always read. (A grammar cannot make a
# small model's parents point at nodes that exist; this shape is the demo judge's, not the paper's.)
REASONING_TREE = r'''root ::= "[" node11 ("," node21 ("," node22 ("," node23)?)?)? "]"
node11 ::= "{\"id\": \"1.1\", \"parent\": null, " body
node21 ::= "{\"id\": \"2.1\", \"parent\": \"1.1\", " body
node22 ::= "{\"id\": \"2.2\", \"parent\": \"1.1\", " body
node23 ::= "{\"id\": \"2.3\", \"parent\": \"1.1\", " body
body ::= "\"type\": \"" [a-z]{1,14} "\", \"content\": \"" [^"\\\n]{1,120} "\"}"'''
