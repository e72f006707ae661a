"""A procedural C²RBench demo set, in the release's JSON schema (paper Appendix A.2).

Layout::

    C2RBench/
      c2rbench.json        a JSON array of tasks (task_id, Question, Label, Level, Final answer,
                           File_name, Annotator Metadata {Steps, Number of steps})
      files/               attachments: an XLSX (openpyxl), two CSVs, two PNG images (Pillow)

Twelve short Chinese tasks across all eight subsets and the three levels. A task's level follows
the paper's rule from its annotated steps (Level 1: 3–6 steps, 2: 7–11, 3: ≥12). Every answer is
computed from the numbers that also fill the question or the attachment, so it is exact; the XLSX
and CSV tasks can only be answered from the table contents. Two tasks carry ``Steps`` at the top
level, as the paper's own example (Fig. 19) does, and ``Level`` is a string in some, an integer in
others, as in the paper's examples. Deterministic: a fixed seed.

The task_id prefixes follow the subset order of Appendix A.2.1 (Multimodal 01 … Reading 08),
which matches the paper's examples (File Processing "06.138", General Knowledge "07100").
"""
from __future__ import annotations

import csv
import json
import logging
import random
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

SEED = 3  # C²RBench is paper 003
CODES = {"Multimodal": "01", "Logical": "02", "Graph Analysis": "03", "Math": "04", "Science": "05",
         "File Processing": "06", "General Knowledge": "07", "Reading": "08"}


def _level(n_steps: int) -> int:
    """The paper's level rule (Sec. 3.3): 3–6 steps -> 1, 7–11 -> 2, 12 or more -> 3."""
    return 1 if n_steps <= 6 else 2 if n_steps <= 11 else 3


def _numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}.{s}" for i, s in enumerate(steps, start=1))


class _Builder:
    def __init__(self) -> None:
        self.tasks: list[dict[str, Any]] = []
        self.serial: dict[str, int] = {}

    def add(self, label: str, question: str, answer: Any, steps: list[str], *, file_name: str = "",
            top_level_steps: bool = False, level_as_int: bool = False, caption: str = "") -> None:
        self.serial[label] = self.serial.get(label, 0) + 1
        level = _level(len(steps))
        task: dict[str, Any] = {
            "task_id": f"{CODES[label]}{self.serial[label]:03d}",
            "Question": question,
            "Label": label,
            "Level": level if level_as_int else str(level),
            "Final answer": str(answer),
            "File_name": file_name,
        }
        if caption:  # not in the official release: lets the text-only demo model see the picture
            task["caption"] = caption
        meta = {"Steps": _numbered(steps), "Number of steps": str(len(steps))}
        if top_level_steps:
            task.update(meta)
        else:
            task["Annotator Metadata"] = meta
        self.tasks.append(task)


def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default()


def _circles_png(path: Path, n_circles: int, n_squares: int) -> None:
    img = Image.new("RGB", (60 * (n_circles + n_squares) + 20, 80), "white")
    draw = ImageDraw.Draw(img)
    shapes = ["circle"] * n_circles + ["square"] * n_squares
    random.Random(n_circles * 10 + n_squares).shuffle(shapes)
    for k, shape in enumerate(shapes):
        box = [20 + 60 * k, 20, 60 + 60 * k, 60]
        (draw.ellipse if shape == "circle" else draw.rectangle)(box, outline="black", width=3)
    img.save(path, format="PNG")


def _bar_png(path: Path, values: dict[str, int]) -> None:
    img = Image.new("RGB", (60 * len(values) + 40, 220), "white")
    draw = ImageDraw.Draw(img)
    for k, (name, v) in enumerate(values.items()):
        x = 30 + 60 * k
        draw.rectangle([x, 190 - 15 * v, x + 35, 190], fill="darkorange", outline="black")
        draw.text((x + 5, 196), name, fill="black", font=_font())  # city code, ASCII: the default font has no CJK
        draw.text((x + 12, 176 - 15 * v), str(v), fill="black", font=_font())
    img.save(path, format="PNG")


def _items_with_files(b: _Builder, rng: random.Random, files: Path) -> None:
    """The tasks that come with a file: spreadsheets, CSV tables, a chart and a picture (written to `files`)."""
    # File Processing: an XLSX whose column must be summed (12 months -> level 3).
    sales = [rng.randint(10, 50) for _ in range(12)]
    wb = Workbook()
    ws = wb.active
    ws.title = "销量"
    ws.append(["月份", "销量"])
    for month, s in enumerate(sales, start=1):
        ws.append([f"{month}月", s])
    wb.save(files / "sales.xlsx")
    running, steps = 0, ["打开附件表格，找到“销量”列"]
    for month, s in enumerate(sales, start=1):
        running += s
        steps.append(f"加上{month}月销量{s}，累计{running}")
    b.add("File Processing", "附件表格中全年12个月的销量总和是多少？", sum(sales), steps + ["得出答案"],
          file_name="sales.xlsx")

    # File Processing: a CSV, the best student (level 2).
    names = ["张三", "李四", "王五", "赵六", "钱七"]
    scores = rng.sample(range(60, 100), len(names))
    with open(files / "scores.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["姓名", "成绩"])
        w.writerows(zip(names, scores))
    best = names[scores.index(max(scores))]
    b.add("File Processing", "附件中成绩最高的学生是谁？", best,
          ["打开附件CSV", "找到“成绩”列"] + [f"{nm}的成绩是{sc}" for nm, sc in zip(names, scores)]
          + [f"最高分是{max(scores)}，属于{best}"], file_name="scores.csv")

    # Graph Analysis: a CSV table of rainfall, the difference between two cities (level 1).
    rain = {"北京": rng.randint(40, 90), "上海": rng.randint(90, 150), "广州": rng.randint(150, 220)}
    with open(files / "rain.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["城市", "降雨量(毫米)"])
        w.writerows(rain.items())
    b.add("Graph Analysis", "根据附件数据，广州的降雨量比北京多多少毫米？", rain["广州"] - rain["北京"],
          ["打开附件", f"读出广州降雨量{rain['广州']}", f"读出北京降雨量{rain['北京']}",
           f"相减：{rain['广州']}-{rain['北京']}={rain['广州'] - rain['北京']}"], file_name="rain.csv")

    # Graph Analysis with a chart image (level 2); Multimodal with a picture (level 1).
    bars = {"BJ": rng.randint(2, 9), "SH": rng.randint(2, 9), "GZ": rng.randint(2, 9)}
    bars["GZ"] = max(bars.values()) + 1  # a unique tallest bar
    _bar_png(files / "bars.png", bars)
    b.add("Graph Analysis", "柱状图显示三个城市（BJ、SH、GZ）的数值。最高的柱子对应哪个城市代码？", "GZ",
          ["观察图片", "找到三根柱子", f"BJ为{bars['BJ']}", f"SH为{bars['SH']}", f"GZ为{bars['GZ']}",
           "比较三个数值", "GZ最高"], file_name="bars.png",
          caption="柱状图：" + "，".join(f"{k}柱高{v}" for k, v in bars.items()))
    n_c, n_s = rng.randint(2, 4), rng.randint(1, 3)
    _circles_png(files / "shapes.png", n_c, n_s)
    b.add("Multimodal", "图中有几个圆形？", n_c, ["观察图片", "区分圆形和正方形", f"数出圆形共{n_c}个"],
          file_name="shapes.png", level_as_int=True, caption=f"图中有{n_c}个圆形和{n_s}个正方形。")


def generate(out_dir: Path) -> Path:
    """Write the demo release under `out_dir`; return the JSON file to pass as ``--src``."""
    rng = random.Random(SEED)
    root = Path(out_dir) / "C2RBench"
    files = root / "files"
    files.mkdir(parents=True, exist_ok=True)
    b = _Builder()

    # Math, level 1 and level 3.
    a, c, d = rng.randint(3, 9), rng.randint(2, 6), rng.randint(1, 2)
    b.add("Math", f"小明有{a}个苹果，又买了{c}个，吃掉{d}个。现在有几个苹果？", a + c - d,
          ["读题，确定原有苹果数", f"买后共有{a}+{c}={a + c}个", f"吃掉后剩{a + c}-{d}={a + c - d}个", "得出答案"],
          level_as_int=True)
    n = 12
    b.add("Math", f"计算 1+2+…+{n} 的值。", n * (n + 1) // 2,
          [f"前{k}项和为{k * (k + 1) // 2}" for k in range(1, n + 1)] + ["得出答案"])

    # Logical: MCQs with the options in the question.
    b.add("Logical", "甲比乙高，乙比丙高。谁最矮？A. 甲 B. 乙 C. 丙 D. 无法确定", "C",
          ["由条件一知甲高于乙", "由条件二知乙高于丙", "所以丙最矮，选C"])
    b.add("Logical", "四人排队：甲在乙前面，丙在甲前面，丁在最后。谁排第一？A. 甲 B. 乙 C. 丙 D. 丁", "C",
          ["丁在最后，排第四", "甲在乙前面", "丙在甲前面", "所以顺序为丙、甲、乙", "加上丁：丙、甲、乙、丁",
           "检查所有条件都满足", "第一名是丙，选C"])

    # General Knowledge (top-level Steps, as in the paper's Fig. 19) and Reading.
    b.add("General Knowledge", "一年有几个月？", 12, ["回忆公历", "公历一年分为十二个月", "得出答案12"],
          top_level_steps=True)
    wake = rng.choice([6, 7])
    b.add("Reading", f"短文：小红每天早上{wake}点起床，比小明早1小时。问：小明几点起床？", f"{wake + 1}点",
          ["找到小红起床时间", "小明比小红晚1小时", f"{wake}+1={wake + 1}，得出答案"])

    # Science, level 2.
    v, t = rng.randint(2, 5), rng.randint(5, 10)
    b.add("Science", f"一个物体以每秒{v}米的速度匀速运动{t}秒，走了多少米？", v * t,
          ["确定速度", "确定时间", "回忆公式：路程=速度×时间", f"代入：{v}×{t}", f"计算得{v * t}",
           "检查单位为米", "得出答案"], top_level_steps=True)

    _items_with_files(b, rng, files)

    data = root / "c2rbench.json"
    data.write_text(json.dumps(b.tasks, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    log.info("c2rbench demo: %d tasks -> %s", len(b.tasks), data)
    return data
