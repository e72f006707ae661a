"""Generated answers in every shape the rule judge meets, for checking its fast paths against math-verify.

Deterministic (seeded): formulas the fast path reads and formulas it must leave alone, polynomials,
sentences with numbers, golds with units, and (record, response) pairs of every answer type. Left out:
formulas sympy may fail to evaluate within math-verify's time limit depending on the process's hash seed
and history (a decimal inside a root: \\sqrt{\\sqrt{24}\\times 9.22}), whose verdict is not repeatable.
"""
from __future__ import annotations

import random

WORDS = ("so the result is approximately about answer answers are it was pi e i inf infinity percent and or "
         "sqrt feet degree meters x j m s per times apples kg km cm final value equals total roughly we get "
         "thus hence J X E I N ok o t").split()


def constant(rng: random.Random) -> str:
    """A number or a constant formula, inside the fast path's grammar or just outside it."""
    a, b, k = rng.randint(1, 60), rng.randint(2, 40), rng.randint(2, 12)
    c = rng.choice([2, 3, 5, 6, 7, 10, 12, 27, 48, 50])
    return rng.choice([
        str(rng.randint(0, 999)), str(-rng.randint(1, 99)), str(rng.randint(1000, 999999)),
        rng.choice(["0.5", "3.14", "1.50", "-2.25", "0.333", "0.3333", "0.33333", "1.4142", "2.0", "0.0"]),
        f"\\frac{{{a}}}{{{b}}}", f"\\dfrac{{{a}}}{{{b}}}", f"\\tfrac{{{a}}}{{{b}}}", f"{a}/{b}", f"-{a}/{b}",
        f"\\frac{{-{a}}}{{{b}}}", f"-\\frac{{{a}}}{{{b}}}", f"\\sqrt{{{c}}}", f"{k}\\sqrt{{{c}}}",
        f"\\frac{{\\sqrt{{{c}}}}}{{{k}}}", f"\\frac{{{k}\\sqrt{{{c}}}}}{{{b}}}", f"\\sqrt{{{c}}}\\sqrt{{{k}}}",
        f"{a}+{k}\\sqrt{{{c}}}", f"{a}-{k}\\sqrt{{{c}}}", f"({k}+\\sqrt{{{c}}})^2", f"\\sqrt{{\\frac{{{a}}}{{{b}}}}}",
        f"\\sqrt {c}", f"\\sqrt{c}", "\\pi", f"{k}\\pi", f"\\frac{{\\pi}}{{{k}}}", f"\\frac{{{a}\\pi}}{{{b}}}",
        f"\\pi/{k}", f"{k}\\pi/{b}", "\\pi^2", "\\pi\\sqrt{2}", f"2^{{{k}}}", f"2^{{-{k}}}", f"10^{{{k}}}", "3^2",
        "2^10", f"{a}\\times {b}", f"{k}\\cdot\\sqrt{{{c}}}", "2\\times\\pi", f"{k}\\frac{{1}}{{{b}}}", f"{k} {a}",
        f"{a}\\%", f"{a}%", "45^\\circ", f"1.5\\times10^{{{k}}}", f"-\\sqrt{{{c}}}", "\\frac{1}{0}",
        f"\\sqrt{{-{c}}}",
        f"(\\frac{{1}}{{{k}}})^{{3}}", "1/2\\pi", f"{a}/{b}/{k}", f"\\frac{{{a}}}{{{b}}}\\pi",
        "\\frac{1+\\sqrt{5}}{2}",
        f"\\sqrt{{{k}}}-\\sqrt{{{k}}}", f"{k}-{k}", "0", f"0/{b}", "-2^{2}",
        f"\\left({k}+\\sqrt{{{c}}}\\right)^{{2}}",
        f"{a}\\sqrt{{{c}}}{k}", f"\\sqrt{{{c}}}^{{{k}}}", f"{k}({a})", f"({a})({k})", f"\\pi({k})", f"{a},{b:03d}",
        f"{a} {b:03d}", f"{a}.{b}\\sqrt{{2}}", f"\\sqrt{{{c}}}\\times {a}.5",
    ])


def polynomial(rng: random.Random) -> str:
    """A formula with letters: polynomials the fast path expands, and look-alikes it must leave alone."""
    k, p, q = rng.randint(1, 30), rng.randint(1, 120), rng.randint(2, 9)
    v, w = rng.choice("xxxyznabkt"), rng.choice("xyzabq")
    return rng.choice([
        f"{v}^2+{k}{v}+{p}", f"({v}+{k})^2", f"({v}-{k})({v}+{k})", f"{v}^{{2}}-{k * k}", f"{k}{v}", f"{v}^2-1",
        f"{k}({v}+1)", f"{k}{v}+{k}", f"{v}^2+{w}^2", f"{v}^{{3}}-1", f"-{v}^2", f"{k}{v}^{{2}}", f"{v}+{w}",
        f"{k}{v}+{q}{w}", v, f"{v}^{q}", f"({v}+{w})^2", f"{v}^2+2{v}{w}+{w}^2", f"({v}+1)^{{{q}}}",
        f"{v}^2 + {k}{v} + {p}", f"{v}^{{2}} + {k}{v} + {p}", f"2{v}{w}", f"{v}{w}", f"{v} {w}", f"{v}({v}+1)",
        f"({v}+1){v}", f"{v}^23", f"{v}-{v}+{k}", f"\\frac{{{v}}}{{{q}}}", f"{v}\\sqrt{{2}}", f"{v}^{{-1}}",
        f"{k}{v}-{p}", f"-{v}", f"{v}^{{{q}}}+{v}", f"{v}_1+1", f"2{v}+{k}", f"({v}+{k})^{{2}}",
        f"{v}^2+{2 * k}{v}+{k * k}", "2m", "t+1", "e^2", "i+1", "2X", "X^2+1", f"2(x+{k})", f"2x+{2 * k}",
        f"{k}x=5", f"x<{k}", f"({k}, {p})", f"[{k}, {p})", f"\\{{{k},{p}\\}}",
    ])


def near_pair(rng: random.Random) -> tuple[str, str]:
    """(pred, gold) written differently with the same value, or just inside or outside the tolerance."""
    a, b, k, c = rng.randint(1, 50), rng.randint(2, 40), rng.randint(2, 20), rng.choice([2, 3, 5, 7])
    v, root = a / b, k * c ** 0.5
    return rng.choice([
        (f"{2 * a}/{2 * b}", f"\\frac{{{a}}}{{{b}}}"), (f"\\dfrac{{{3 * a}}}{{{3 * b}}}", f"{a}/{b}"),
        (f"{v:.3f}", f"\\frac{{{a}}}{{{b}}}"), (f"{v:.4f}", f"\\frac{{{a}}}{{{b}}}"),
        (f"{v:.6f}", f"\\frac{{{a}}}{{{b}}}"),
        (f"\\frac{{{a}}}{{{b}}}", f"{v:.4f}"), (f"\\frac{{{a}}}{{{b}}}", f"{v:.6f}"),
        (f"\\sqrt{{{k * k * c}}}", f"{k}\\sqrt{{{c}}}"),
        (f"{k}\\sqrt{{{c}}}", f"\\sqrt{{{k * k * c}}}"), (f"{root:.4f}", f"{k}\\sqrt{{{c}}}"),
        (f"{k}\\sqrt{{{c}}}", f"{root:.5f}"),
        (f"{3.141592653589793 / k:.5f}", f"\\frac{{\\pi}}{{{k}}}"), (f"\\pi/{k}", f"\\frac{{\\pi}}{{{k}}}"),
        ("\\frac{10001}{10000}", "1"), ("\\frac{10002}{10000}", "1"), ("\\frac{9999}{10000}", "1"),
        ("1", "\\frac{10001}{10000}"), ("\\frac{1}{100000}", "0"), ("\\frac{1}{10000}", "0"),
        ("\\frac{2}{10000}", "0"),
        ("2^{-61}", "2^{-62}"), ("2^{-61}", "2^{-61}"), ("\\frac{1}{100}", "0.0100001"), ("\\frac{1}{100}", "0.0101"),
        ("\\frac{1}{3}", "0.33"), ("0.33", "\\frac{1}{3}"), ("\\frac{1}{3}", "0.3333"), ("\\frac{1}{3}", "0.33333"),
        ("\\sqrt{2}", "1.4142"), ("\\sqrt{2}", "1.414"), ("1.41421", "\\sqrt{2}"), ("\\pi", "3.14159"),
        ("3.14", "\\pi"),
        ("\\sqrt{4}-2", "0"), ("0", "\\sqrt{4}-2"), ("0", "6-6"), ("\\sqrt{4}-\\sqrt{4}", "6-6"),
        ("\\frac{1}{0}", "5"),
        (f"{a}\\times{b}", f"{a * b}"), (f"{a}\\cdot{b}", f"{a * b}"), ("(x+1)^2", "x^2+2x+1"),
        ("x^2+2x+1", "(x+1)^2"),
        ("2(x+3)", "2x+6"), ("2x+6", "2(x+3)"), ("x-x+3", "3"), ("(x-1)(x+1)", "x^2-1"), ("x^2+x", "x(x+1)"),
        ("x+y", "y+x"), ("(a+b)^2", "a^2+2ab+b^2"), ("2\\frac{1}{2}", "2.5"), ("2 3", "5"), ("2 3", "6"),
        ("2(7)", "9"),
        ("2(7)", "14"), ("1/2\\pi", "\\frac{1}{2\\pi}"), ("-2^{2}", "-4"), ("x^23", "x^{23}"),
        ("\\sqrt 34", "4\\sqrt{3}"),
        (f"{a}", f"{a}.0"), (f"{a}.00001", f"{a}"), (f"{a}.0001", f"{a}"), (f"{a}.00011", f"{a}"),
    ])


def sentence(rng: random.Random, number: str) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 7))]
    words.insert(rng.randint(0, len(words)), number)
    text = " ".join(words)
    return text[0].upper() + text[1:] if rng.random() < 0.5 else text


def prose_pair(rng: random.Random) -> tuple[str, str]:
    """A sentence with a number against a gold with or without a unit, and look-alikes that math-verify
    does read as the gold ("j 4853" is 4853·j)."""
    n = rng.randint(2, 9999)
    gold = rng.choice([str(n), f"{n} km", f"{n} m/s", f"{n} J", f"{n}^\\circ", f"{n}%", f"{n} apples", f"{n} x",
                       f"{n} cm", f"{n} kg", f"{n}\\sqrt{{3}}", f"x^2+{n}", f"{n}x", f"\\frac{{{n}}}{{7}}", f"{n}.25",
                       f"{n} s", f"{n} m", f"{n} e", f"{n} J/s", f"{n} kg m", f"{n} N m", "1.5\\times10^{3}",
                       "\\frac{1}{0}",
                       f"y = {n}x", f"{n}, {n + 1}"])
    tricky = [(f"x {n} feet", f"{n} x"), (f"j {n}", f"{n} J"), (f"apples {n}", f"{n} apples"), (f"e e {n}", f"{n}"),
              (f"x {n}", f"{n} x"), (f"m {n} per s", f"{n} m/s"), (f"{n} j so", f"{n} J"),
              (f"The answers are {n}", f"{n}"),
              (f"So it is {n} x", f"{n}x"), (f"kg {n}", f"{n} kg"), (f"so {n} percent", f"{n}%"),
              (f"pi {n}", f"{n}\\pi"),
              (f"ee {n}", f"{n} e"), (f"x x {n}", f"{n}x^2"), (f"sqrt x {n}", f"{n}\\sqrt{{x}}"),
              (f"n m {n}", f"{n} N m"),
              (f"so {n} x", f"y = {n}x"), (f"{n} ay", "\\frac{1}{0}")]
    if rng.random() < 0.3:
        return rng.choice(tricky)
    number = rng.choice([str(n), f"{n:,}", f"{n / 100:.2f}", str(rng.randint(2, 99)), "0", "1", f"{n}.5"])
    return sentence(rng, number), gold


def formula_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """n distinct (pred, gold) pairs of formulas, polynomials and sentences."""
    rng = random.Random(seed)
    out: dict[tuple[str, str], None] = {}
    while len(out) < n:
        r = rng.random()
        if r < 0.25:
            pair = (constant(rng), constant(rng))
        elif r < 0.4:
            pair = (polynomial(rng), polynomial(rng))
        elif r < 0.5:
            pair = (polynomial(rng), constant(rng)) if rng.random() < 0.5 else (constant(rng), polynomial(rng))
        elif r < 0.75:
            pair = near_pair(rng)
        else:
            pair = prose_pair(rng)
        out[pair] = None
    return list(out)


def random_formula(rng: random.Random, depth: int, letters: str) -> str:
    """A random formula built from the grammar's pieces (and a few just outside it)."""
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice([str(rng.randint(0, 40)), str(rng.randint(2, 9)), "\\pi", f"\\sqrt{{{rng.randint(0, 50)}}}",
                           rng.choice(letters) if letters else "7", f"{rng.randint(1, 9)}.{rng.randint(0, 99)}"])
    sub = lambda: random_formula(rng, depth - 1, letters)  # noqa: E731
    return rng.choice([
        lambda: f"{sub()}+{sub()}", lambda: f"{sub()}-{sub()}", lambda: f"{sub()}{sub()}", lambda: f"{sub()}/{sub()}",
        lambda: f"\\frac{{{sub()}}}{{{sub()}}}", lambda: f"\\sqrt{{{sub()}}}", lambda: f"({sub()})",
        lambda: f"-{sub()}",
        lambda: f"{sub()}^{rng.randint(0, 5)}", lambda: f"{sub()}^{{{rng.randint(-3, 6)}}}",
        lambda: sub() + rng.choice(["\\times ", "\\cdot "]) + sub(),
        lambda: str(rng.randint(2, 9)) + rng.choice(["\\pi", "\\sqrt{3}", f"({sub()})", rng.choice(letters or "x")]),
    ])()


def random_formulas(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        s = random_formula(rng, rng.randint(1, 4), rng.choice(["", "x", "xy", "abknpqruvwxyz"]))
        if len(s) <= 120:
            out[s] = None
    return list(out)


def rec(answer: list[str], answer_type: str, choices: list[str] = (), **kw) -> dict:
    return {"id": "t", "benchmark": "omibench", "question": "Q", "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type, **kw}


def scored_cases(n: int, seed: int = 0) -> list[tuple[dict, str]]:
    """(record, response) pairs of every answer type: MCQ letters with and without brackets, numbers with
    units, thousands separators and percentages, negative numbers, scientific notation, fractions, roots,
    polynomials, intervals and tuples, yes/no and other text, and answers in several parts."""
    rng = random.Random(seed)
    out = []
    finish = ["\\boxed{{{}}}", "The answer is {}.", "Answer: ${}$", "**Answer:** {}", "So the result is {}",
              "Final answer: {}", "{}"]
    for _ in range(n):
        kind = rng.choice(["mcq", "numeric", "formula", "text", "multi"])
        if kind == "mcq":
            opts = [str(rng.randint(1, 500)) for _ in range(4)]
            gold = rng.choice(["A", "B", "C", "D", "BD"])
            r = rec([gold], "mcq", opts)
            said = rng.choice([gold, f"({gold[0]})", f"{gold[0]})", f"Option {gold[0]}", "C", "(B) and (D)", "B, D",
                               opts[0], f"\\text{{{gold[0]}}}", "A cat", "E"])
        elif kind == "numeric":
            v = rng.choice([rng.randint(-50, 5000), round(rng.uniform(-10, 100), 2), rng.randint(1000, 99999)])
            unit = rng.choice(["", "", " cm", " m/s", " kg", "^\\circ", "%", " km", " J"])
            r = rec([f"{v}{unit}"], "numeric")
            w = v if rng.random() < 0.6 else round(v * rng.uniform(0.5, 1.5), 2)
            said = rng.choice([f"{w}", f"{w}{unit}", f"{w:,}", f"{w:,}".replace(",", " "), f"{w:.3e}",
                               f"{w} \\times 10^{{0}}", f"{w}\\%", f"approximately {w:,}", f"-{w}", f"{w} units"])
        elif kind == "formula":
            pair = rng.choice([near_pair(rng), (constant(rng), constant(rng)), (polynomial(rng), polynomial(rng))])
            gold, said = pair
            r = rec([gold], "expression")
        elif kind == "text":
            gold = rng.choice(["possible", "impossible", "Yes", "No", "octahedron", "the pressure increases",
                               "clockwise", "blue"])
            r = rec([gold], "text")
            said = rng.choice(["possible", "impossible", "yes", "No.", "not possible", "The Octahedron",
                               "the pressure decreases", "counterclockwise", "Blue", "It is possible"])
        else:
            a, b = rng.randint(1, 99), rng.randint(1, 99)
            gold = rng.choice([[str(a), str(b)], [f"({a}, {b})"], [f"[{a}, {b})"], [f"(1) {a}", f"(2) {b}"]])
            r = rec(gold, "multi-part")
            said = rng.choice([f"{a}, {b}", f"{a}; {b + 1}", f"({a}, {b})", f"[{a}, {b})", f"(1) {a} (2) {b}",
                               f"{a} and {b}", f"The answers are {a}, {b}"])
        out.append((r, rng.choice(finish).format(said)))
    return out
