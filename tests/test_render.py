"""Prompt templates and message rendering: image positions, image options, modes, attachments."""
from pathlib import Path

import pytest
from PIL import Image

from infer.render import RenderError, render_spec, to_wire
from infer.settings import SettingError, parse_setting
from infer.templates import Template, TemplateError, load_template


def make_images(tmp_path: Path, n: int) -> list[str]:
    names = []
    for i in range(n):
        name = f"img{i}.png"
        Image.new("RGB", (4 + i, 4), (i * 40, 0, 0)).save(tmp_path / name)
        names.append(name)
    return names


def record(**kw):
    base = {"id": "x", "benchmark": "omibench", "question": "Q", "images": [], "choices": [],
            "answer": ["A"], "answer_type": "mcq"}
    return {**base, **kw}


def parts(messages):
    content = messages[0]["content"]
    if isinstance(content, str):
        return [("text", content)]
    return [("img", Path(p["path"]).name) if p["type"] == "image_ref" else ("text", p["text"]) for p in content]


def test_single_pass_keeps_braces_in_values():
    t = Template(Path("t.txt"), "A {{question}} B {{#choices}}[{{choices}}]{{/choices}}")
    assert t.render({"question": "\\frac{{a}}{b} {{choices}}", "choices": ""}) == "A \\frac{{a}}{b} {{choices}} B "
    assert t.render({"question": "q", "choices": "A. x"}) == "A q B [A. x]"


def test_unknown_placeholder_is_an_error():
    t = Template(Path("bad.txt"), "{{questoin}}")
    with pytest.raises(TemplateError, match="bad.txt.*questoin"):
        t.render({"question": "q"})


def test_unknown_setting_names_known_ones():
    with pytest.raises(TemplateError, match="cot_boxed"):
        load_template("omibench", "no_such_prompt")
    with pytest.raises(SettingError, match="unknown modifier 'smell'"):
        parse_setting("direct+smell")


def test_images_follow_their_tags_out_of_order_and_in_options(tmp_path):
    imgs = make_images(tmp_path, 4)
    rec = record(question="first [IMAGE2] then [IMAGE0] end", images=imgs,
                 choices=["[IMAGE3]", "text option", "[IMAGE1]"])
    msgs = render_spec(rec, load_template("omibench", "cot_boxed"), tmp_path)
    p = parts(msgs)
    imgs_in_order = [x for kind, x in p if kind == "img"]
    assert imgs_in_order == ["img2.png", "img0.png", "img3.png", "img1.png"]
    text = "".join(x for kind, x in p if kind == "text")
    assert text.startswith('Please reason step by step, and then provide the final answer in the exact format: "\\boxed{ANSWER}".')
    assert "[Choices]\nA. " in text and "\nB. text option\nC. " in text
    assert text.rstrip().endswith("Let's think step-by-step!")
    # the image option sits right after its letter
    i = p.index(("img", "img3.png"))
    assert p[i - 1][1].endswith("A. ")


def test_untagged_images_go_first_and_repeats_are_kept(tmp_path):
    imgs = make_images(tmp_path, 2)
    rec = record(question="Which shape?", images=[imgs[0], imgs[1], imgs[0]], answer=["B"])
    p = parts(render_spec(rec, load_template("mira", "direct"), tmp_path))
    assert [x for k, x in p if k == "img"] == ["img0.png", "img1.png", "img0.png"]
    assert p[0][0] == "img" and p[-1][1].startswith("Question: Which shape?")


def test_no_choices_section_leaves_no_blank_lines(tmp_path):
    msgs = render_spec(record(question="What is 2+2?", answer=["4"], answer_type="numeric"),
                       load_template("omibench", "cot_boxed"), tmp_path)
    assert msgs[0]["content"] == ('Please reason step by step, and then provide the final answer in the exact format: '
                                  '"\\boxed{ANSWER}".\n\n[Question]\nWhat is 2+2?\nLet\'s think step-by-step!')


def test_caption_and_text_modes(tmp_path):
    imgs = make_images(tmp_path, 2)
    rec = record(question="Compare [IMAGE0] and [IMAGE1].", images=imgs, captions=["a red dot", "a blue dot"])
    t = load_template("think360", "direct")
    assert render_spec(rec, t, tmp_path, "caption")[0]["content"] == (
        "Compare [Image 1: a red dot] and [Image 2: a blue dot].\nPlease answer this question.")
    assert render_spec(rec, t, tmp_path, "text")[0]["content"] == "Compare  and .\nPlease answer this question."
    with pytest.raises(RenderError, match="no caption"):
        render_spec(record(question="[IMAGE0]", images=imgs[:1]), t, tmp_path, "caption")


def test_missing_image_is_a_render_error(tmp_path):
    with pytest.raises(RenderError, match="not readable"):
        render_spec(record(images=["gone.png"]), load_template("mira", "direct"), tmp_path)


def test_wire_format_is_openai_image_url(tmp_path):
    imgs = make_images(tmp_path, 1)
    wire = to_wire(render_spec(record(images=imgs), load_template("mira", "direct"), tmp_path))
    img = wire[0]["content"][0]
    assert img["type"] == "image_url" and img["image_url"]["url"].startswith("data:image/png;base64,")


def test_attached_xlsx_csv_and_pdf_become_text(tmp_path):
    from openpyxl import Workbook
    wb = Workbook()
    wb.active.title = "销售"
    wb.active.append(["月份", "数量"])
    wb.active.append(["一月", 12])
    wb.save(tmp_path / "t.xlsx")
    (tmp_path / "t.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    rec = record(benchmark="c2rbench", question="合计是多少?", files=["t.xlsx", "t.csv"], answer=["12"],
                 answer_type="numeric")
    text = render_spec(rec, load_template("c2rbench", "zero_shot"), tmp_path)[0]["content"]
    assert "[File: t.xlsx]\nSheet 销售:\n月份,数量\n一月,12" in text
    assert "[File: t.csv]\na,b\n1,2" in text
    assert text.index("[File: t.xlsx]") < text.index("问题:合计是多少?")
    with pytest.raises(RenderError, match="unsupported attached file type"):
        (tmp_path / "x.docx").write_bytes(b"x")
        render_spec(record(files=["x.docx"]), load_template("c2rbench", "zero_shot"), tmp_path)


def test_hints_are_bulleted(tmp_path):
    rec = record(benchmark="morphobench", question="Find x.", hints=["use symmetry", "x is even"], answer=["4"])
    assert render_spec(rec, load_template("morphobench", "with_hints"), tmp_path)[0]["content"] == (
        'Find x.\nHints:\n- use symmetry\n- x is even\n\nGive your final answer on the last line, in the form '
        '"Answer: <your final answer>".')


def test_template_comments_are_never_sent_nor_hashed(tmp_path):
    plain = Template(Path("t.txt"), "Q: {{question}}")
    commented = Template(Path("t.txt"), "{{! where this prompt comes from,\nover two lines }}\nQ: {{question}}")
    assert commented.text == plain.text and commented.sha == plain.sha
    assert render_spec(record(question="2+2?"), commented, tmp_path)[0]["content"] == "Q: 2+2?"


def test_attached_pdf_becomes_its_text(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(3, 2))
    fig.text(0.1, 0.5, "Total revenue 1234")
    fig.savefig(tmp_path / "report.pdf")
    plt.close(fig)
    rec = record(benchmark="c2rbench", question="收入是多少?", files=["report.pdf"], answer=["1234"])
    text = render_spec(rec, load_template("c2rbench", "zero_shot"), tmp_path)[0]["content"]
    assert "[File: report.pdf]\nTotal revenue 1234" in text


def test_caption_before_the_question_gets_its_own_line(tmp_path):
    imgs = make_images(tmp_path, 1)
    rec = record(benchmark="mira", question="How many cubes?", images=imgs, captions=["three cubes"], answer=["3"])
    assert render_spec(rec, load_template("mira", "direct"), tmp_path, "caption")[0]["content"].startswith(
        "[Image 1: three cubes]\nQuestion: How many cubes?")


def test_literal_values_never_become_images(tmp_path):
    imgs = make_images(tmp_path, 1)
    t = Template(Path("judge.txt"), "{{question}}\n<<<\n{{response}}\n>>>")
    rec = record(question="Look at [IMAGE0].", images=imgs)
    p = parts(render_spec(rec, t, tmp_path, literal={"response": "See [IMAGE0] and [IMAGE7]\x000\x00"}))
    assert [k for k, _ in p] == ["text", "img", "text"]
    assert p[2][1] == ".\n<<<\nSee [IMAGE0] and [IMAGE7]0\n>>>"


def test_a_changed_image_or_attachment_is_read_again(tmp_path):
    """Caches are keyed by the file's version as well as its path: an edited file is not served stale."""
    from infer.attachments import attachment_text
    from infer.render import file_sha

    img = tmp_path / "a.png"
    Image.new("RGB", (3, 3), (255, 0, 0)).save(img)
    before = file_sha(img)
    Image.new("RGB", (4, 3), (0, 0, 255)).save(img)
    assert file_sha(img) != before
    f = tmp_path / "t.csv"
    f.write_text("a,b\n")
    assert attachment_text(f) == "a,b\n"
    f.write_text("a,b,c\n1,2,3\n")
    assert attachment_text(f) == "a,b,c\n1,2,3\n"
