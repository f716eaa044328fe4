"""`reflong-build human` without a browser: the answer log, the page's API, scoring on the
annotator's tasks, agreement between annotators, and the command's one-line errors.
(The page itself, driven in Chromium, is tests/test_human_browser.py.)"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _human_world import build_setting, gold_of
from click.testing import CliRunner

from reflong.cli import main
from reflong.evaluate.agreement import cohen_kappa
from reflong.evaluate.human.session import open_session
from reflong.evaluate.human.store import AnswerStore
from reflong.evaluate.human.tasks import load_setting


def _post(url: str, body: object, content_type: str = "application/json", host: str | None = None):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url + "api/answer", data=data, headers={"Content-Type": content_type})
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _get(url: str, path: str, host: str | None = None):
    req = urllib.request.Request(url + path)
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _answer(build: Path, out: Path, annotator: str, answers: dict[str, list[int]], n_tasks: int = 6) -> None:
    """Answer through the page's API, as the page does."""
    with open_session(build, out, annotator, "hard_30K", n_tasks=n_tasks, port=0) as server:
        for tid, indexes in answers.items():
            status, body = _post(server.url, {"task": tid, "indexes": indexes, "seconds": 10 + int(tid)})
            assert status == 200 and body["saved"], body


def _score(*args: str) -> tuple[int, dict | str]:
    res = CliRunner().invoke(main, ["eval", "score", *args])
    if res.exit_code != 0 or "--format" not in args:
        return res.exit_code, res.output
    return 0, json.loads(res.output)


def test_every_answer_is_a_log_line_and_the_predictions_follow_it(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build")
    out = tmp_path / "alice"
    with open_session(build, out, "alice", n_tasks=4, port=0) as server:
        status, page = _get(server.url, "")
        assert status == 200 and b'id="indexes"' in page and b"/static/page.js" in page
        assert _get(server.url, "static/page.js")[0] == 200
        state = json.loads(_get(server.url, "api/state")[1])
        assert state == {
            "annotator": "alice",
            "model": "human:alice",
            "setting": "hard_30K",
            "total": 4,
            "answered": 0,
            "next": 1,
        }
        task = json.loads(_get(server.url, "api/task/2")[1])
        assert (task["position"], task["total"], task["task"]) == (2, 4, "1")
        assert task["key"] == "Contrastive Priors in Citation Graphs"
        assert len(task["documents"]) == 6 and task["documents"][0].startswith("Paper 1-0:")
        assert 'citing "Contrastive Priors in Citation Graphs"' in task["instructions"]

        status, body = _post(server.url, {"task": "0", "indexes": [3, 0, 3], "seconds": 12.5})
        assert status == 200 and (body["answered"], body["next"]) == (1, 2)
        lines = (out / "answers.jsonl").read_text().splitlines()
        assert len(lines) == 1
        entry = json.loads(lines[0])
        assert (entry["task"], entry["indexes"], entry["seconds"]) == ("0", [0, 3], 12.5)
        assert entry["response"] == "Documents: {0, 3}"
        # eval run's format, written as soon as the answer is
        preds = json.loads((out / "hard_30K.json").read_text())
        assert preds == {"0": ["Sparse Routing for Long Documents", "Documents: {0, 3}"]}

        # what the page refuses, each with a sentence it can show
        assert _post(server.url, {"task": "1", "indexes": [6]}) == (
            400,
            {"error": "this task has documents 0 to 5; there is no document 6"},
        )
        assert _post(server.url, {"task": "1", "indexes": ["2"]})[0] == 400
        assert _post(server.url, {"task": "1", "indexes": [True]})[0] == 400
        assert _post(server.url, {"task": "5", "indexes": [1]}) == (
            400,
            {"error": "task '5' is not in this session"},
        )  # task 5 exists in the build but not among the first 4
        assert _post(server.url, {"task": "1", "indexes": [1]}, content_type="text/plain")[0] == 415
        assert _post(server.url, {"task": "1", "indexes": [1]}, host="attacker.example:80")[0] == 403
        assert _get(server.url, "api/state", host="attacker.example")[0] == 403
        assert _get(server.url, "api/task/9")[0] == 404
    assert len((out / "answers.jsonl").read_text().splitlines()) == 1  # nothing refused was saved

    manifest = json.loads((out / "run_manifest.json").read_text())
    assert manifest["model"] == "human:alice" and manifest["command"] == "human"
    assert manifest["scope"] == {"hard_30K": ["0", "1", "2", "3"]}
    figures = manifest["settings"]["hard_30K"]
    assert (figures["tasks"], figures["answered"], figures["seconds_mean"]) == (4, 1, 12.5)
    assert figures["prompts"]["sha256"] == load_setting(build, None, 4).prompts_sha256


def test_a_half_written_last_line_is_cut_and_a_restart_resumes(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build")
    out = tmp_path / "alice"
    _answer(build, out, "alice", {"0": [0, 1], "1": [1, 4]})
    log = out / "answers.jsonl"
    good = log.read_bytes()
    log.write_bytes(
        good + b'{"annotator": "alice", "config": "hard_30K", "task": "2", "ind'
    )  # killed mid-write
    (out / "hard_30K.json").unlink()  # killed before the predictions were rewritten
    with open_session(build, out, "alice", n_tasks=6, port=0) as server:
        assert log.read_bytes() == good  # the unacknowledged half line is gone, the rest intact
        assert json.loads((out / "hard_30K.json").read_text()).keys() == {"0", "1"}  # rebuilt at start
        state = json.loads(_get(server.url, "api/state")[1])
        assert (state["answered"], state["next"]) == (2, 3)
        assert _post(server.url, {"task": "2", "indexes": [2], "seconds": float("nan")})[0] == 200
    saved = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["task"] for e in saved] == ["0", "1", "2"]
    assert saved[2]["seconds"] == 0.0  # a nonsense timer value is not kept


def test_another_annotator_or_rebuilt_tasks_are_refused_in_one_line(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build")
    out = tmp_path / "alice"
    _answer(build, out, "alice", {"0": [0, 1]})
    res = CliRunner().invoke(main, ["human", "--build", str(build), "--out", str(out), "--annotator", "bob"])
    assert res.exit_code == 1
    assert "holds answers of annotator 'alice', not 'bob'" in res.output and "Traceback" not in res.output
    build_setting(tmp_path / "build", tasks=7)  # rebuilt: same setting name, other prompts
    res = CliRunner().invoke(
        main, ["human", "--build", str(build), "--out", str(out), "--annotator", "alice"]
    )
    assert res.exit_code == 1 and "built differently" in res.output and "use another --out" in res.output
    with pytest.raises(Exception, match="use letters, digits"):
        AnswerStore(tmp_path / "x", "a b")
    edited = tmp_path / "edited"
    edited.mkdir()
    first_line = (out / "answers.jsonl").read_text().splitlines()[0]
    (edited / "answers.jsonl").write_text(f"{first_line}\n[1, 2]\n")
    res = CliRunner().invoke(
        main, ["human", "--build", str(build), "--out", str(edited), "--annotator", "alice"]
    )
    assert res.exit_code == 1 and "answers.jsonl line 2 is not an answer (was the log edited?)" in res.output


def test_the_command_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build")
    build_setting(tmp_path / "build", config="easy_30K")

    def run(*args: str):
        return CliRunner().invoke(main, ["human", "--build", str(build), "--annotator", "a", *args])

    res = run("--out", str(tmp_path / "a"))
    assert res.exit_code == 1
    assert "holds 2 settings; choose one with --setting (easy_30K, hard_30K)" in res.output
    res = run("--out", str(tmp_path / "a"), "--setting", "hard_60K")
    assert res.exit_code == 1 and "no setting 'hard_60K'" in res.output
    res = run("--out", str(build / "human"), "--setting", "hard_30K")
    assert res.exit_code == 1 and "is inside --build" in res.output
    assert not (build / "human").exists()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        res = run("--out", str(tmp_path / "a"), "--setting", "hard_30K", "--port", str(port))
    assert res.exit_code == 1 and f"port {port} on 127.0.0.1 is taken" in res.output
    assert "Traceback" not in res.output
    res = run("--out", str(tmp_path / "a"), "--limit", "0")
    assert res.exit_code == 2 and "Invalid value for '--limit'" in res.output


def test_eval_score_scores_the_annotator_on_their_tasks_beside_models(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build", tasks=8)
    build_setting(tmp_path / "build", config="easy_30K", tasks=8)  # a setting the annotator never saw
    out = tmp_path / "alice"
    gold = {str(t): gold_of(t, 6) for t in range(5)}
    answers = {**gold, "1": [gold["1"][0]], "2": [*gold["2"], 5 if 5 not in gold["2"] else 4]}
    del answers["4"]  # not answered yet: missing, within the 5 tasks
    _answer(build, out, "alice", answers, n_tasks=5)
    save = build / "eval" / "human-alice.json"
    code, data = _score(
        "--build", str(build), "--predictions", str(out), "--format", "json", "--save", str(save)
    )
    assert code == 0, data
    assert set(data) == {"hard_30K_answers.json", "overall"}  # easy_30K: not this annotator's setting
    figures = data["hard_30K_answers.json"]
    assert figures["n"] == 5  # the session's 5 tasks, not the setting's 8
    assert (figures["exacc"], figures["missing"], figures["type_i"], figures["type_ii"]) == (0.4, 1, 2, 1)
    saved = json.loads(save.read_text())
    assert saved["meta"]["label"] == "human:alice"
    # the build's report shows the human beside the baselines and models
    from reflong.assemble.audit.report_eval import load_evaluations

    assert [s.label for s in load_evaluations(build)] == ["human:alice"]
    # the release's own scoring reads the same answers
    code, data = _score(
        "--build", str(build), "--predictions", str(out), "--format", "json", "--parser", "reflong2025"
    )
    assert code == 0 and data["overall"]["exacc"] == 0.4


def test_cohen_kappa_matches_the_textbook_example() -> None:
    # 50 decisions: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 -> p_o 0.7, p_e 0.5, kappa 0.4
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + [(False, False)] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([(True, True)] * 3) is None  # nobody ever said no: chance agreement is 1
    assert cohen_kappa([(True, False), (False, True)]) == pytest.approx(-1.0)


def test_agreement_between_annotators_on_the_tasks_both_answered(tmp_path: Path) -> None:
    build = build_setting(tmp_path / "build")
    gold = {str(t): gold_of(t, 6) for t in range(6)}
    alice = {t: gold[t] for t in ("0", "1", "2", "3")}
    bob = {**{t: gold[t] for t in ("0", "1", "2")}, "3": [*gold["3"], 5], "4": gold["4"]}  # 3: one extra
    carol = {t: [] for t in ("0", "1")}
    _answer(build, tmp_path / "alice", "alice", alice)
    _answer(build, tmp_path / "bob", "bob", bob)
    _answer(build, tmp_path / "carol", "carol", carol)
    code, data = _score(
        "--build",
        str(build),
        "--predictions",
        str(tmp_path / "alice"),
        "--agreement-with",
        str(tmp_path / "bob"),
        "--agreement-with",
        str(tmp_path / "carol"),
        "--prompts",  # M per task from the prompts (6 here; the name hard_30K alone would say 8)
        str(build),
        "--format",
        "json",
    )
    assert code == 0, data
    pairs = {(p["a"], p["b"]): p for p in data["agreement"]}
    ab = pairs[("human:alice", "human:bob")]
    # shared: tasks 0-3 (bob's task 4 has no partner); same answer on 3 of 4
    assert (ab["shared_tasks"], ab["same_answer"], ab["same_answer_share"]) == (4, 3, 0.75)
    # 24 decisions, one differs; yes-rates from the answers themselves
    yes_a = sum(len(v) for v in alice.values()) / 24
    yes_b = sum(len(bob[t]) for t in alice) / 24
    p_e = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    assert (ab["document_decisions"], ab["decisions_agreeing"]) == (24, 23)
    assert ab["cohen_kappa"] == pytest.approx((23 / 24 - p_e) / (1 - p_e), abs=1e-6)
    ac = pairs[("human:alice", "human:carol")]
    assert (ac["shared_tasks"], ac["same_answer"]) == (2, 0)
    assert ("human:bob", "human:carol") in pairs and len(pairs) == 3
    # the build's report: the annotator's time on task and agreement beside the scores
    save = build / "eval" / "human-alice.json"
    args = ["--build", str(build), "--predictions", str(tmp_path / "alice"), "--prompts", str(build)]
    code, _ = _score(*args, "--agreement-with", str(tmp_path / "bob"), "--save", str(save))
    assert code == 0
    from reflong.assemble.audit.report_eval import evaluation_section, load_evaluations

    html = evaluation_section(load_evaluations(build), ["hard_30K"], "paper")
    people = html.split('data-stat="people:human:alice">')[1].split("</li>")[0]
    assert "4 tasks answered, 12 s a task (median 12 s)" in people  # 10, 11, 12, 13 s
    assert (
        "agreement with human:bob: same answer on 75.0% of 4 shared tasks, Cohen's kappa 0.91 per" in people
    )
    # as a table, after the scores
    code, text = _score(
        "--build",
        str(build),
        "--predictions",
        str(tmp_path / "alice"),
        "--agreement-with",
        str(tmp_path / "bob"),
    )
    assert code == 0 and "agreement on the tasks both answered:" in text
    assert "human:alice  human:bob" in text and "0.750 (3)" in text


def test_a_build_with_both_prompt_placements_is_named_by_folder(tmp_path: Path) -> None:
    """A/F builds keep the question-first prompts in before/ and question-last in ori/, with one
    answers file in answers/ (the release's layout): --setting names the folder too."""
    flat = build_setting(tmp_path / "flat", config="multi_stars_hard_8K")
    build = tmp_path / "a"
    for folder in ("before", "ori"):
        (build / folder).mkdir(parents=True)
        (build / folder / "multi_stars_hard_8K.json").write_bytes(
            (flat / "multi_stars_hard_8K.json").read_bytes()
        )
    (build / "answers").mkdir()
    (build / "answers" / "multi_stars_hard_8K_answers.json").write_bytes(
        (flat / "multi_stars_hard_8K_answers.json").read_bytes()
    )
    res = CliRunner().invoke(
        main, ["human", "--build", str(build), "--out", str(tmp_path / "x"), "--annotator", "a"]
    )
    assert res.exit_code == 1
    assert "choose one with --setting (before/multi_stars_hard_8K, ori/multi_stars_hard_8K)" in res.output
    setting = load_setting(build, "ori/multi_stars_hard_8K", 3)
    assert setting.prompts_path == build / "ori" / "multi_stars_hard_8K.json"
    assert setting.answers_path == build / "answers" / "multi_stars_hard_8K_answers.json"
    assert [t.task_id for t in setting.tasks] == ["0", "1", "2"] and setting.available == 6
    # one prompts file as --build finds its answers in the build above it
    alone = load_setting(build / "before" / "multi_stars_hard_8K.json", None, 2)
    assert alone.answers_path == setting.answers_path and alone.tasks[1].gold == tuple(gold_of(1, 6))
