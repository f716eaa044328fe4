"""The human baseline's page in a real headless browser (Debian's Chromium, driven by selenium):
a person's session end to end, with the server killed (SIGKILL) mid-way and restarted.

Skips with its reason where Chromium is not installed, except in CI (``REFLONG_REQUIRE_BROWSER``,
set by .ci/run, which installs Chromium; or ``REFLONG_REQUIRE_SHARED``): there it fails instead,
so a missing browser can never turn this test into a silent skip.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _human_world import build_setting, gold_of
from _signals import interruptible
from click.testing import CliRunner

from reflong.cli import main

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)
WAIT_S = 40


def _browser_or_skip() -> None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if not missing:
        return
    reason = (
        f"needs Debian's chromium and chromium-driver ({', '.join(missing)} absent; "
        "apt-get install -y chromium chromium-driver)"
    )
    if os.environ.get("REFLONG_REQUIRE_BROWSER") or os.environ.get("REFLONG_REQUIRE_SHARED"):
        pytest.fail(f"{reason}, and REFLONG_REQUIRE_BROWSER/REFLONG_REQUIRE_SHARED say this run must have it")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    _browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(WAIT_S)
    yield browser
    browser.quit()


def _serve(build: Path, out: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """`reflong-build human` in a child process (so it can be SIGKILLed); returns it and its URL."""
    cmd = [sys.executable, "-c", "from reflong.cli import main; main()", "human", "--build", str(build)]
    cmd += ["--out", str(out), "--annotator", "ana", "--limit", "5", "--port", "0"]
    with open(log, "a") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            found = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
            assert found, (line, log.read_text())
            return proc, found.group(1)
        assert proc.poll() is None, log.read_text()
    proc.kill()
    raise AssertionError(f"the page's server did not start: {log.read_text()}")


def _until(driver, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.1).until(lambda d: condition(d), message=what)


def _text(driver, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text


def _at(driver, position: int) -> None:
    _until(driver, lambda d: _text(d, "position") == f"Task {position} of 5", f"task {position} of 5 shown")


def _type(driver, element_id: str, text: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text)


def _mark(driver, index: int) -> None:
    from selenium.webdriver.common.by import By

    button = driver.find_element(By.CSS_SELECTOR, f"#doc-{index} button.mark")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)  # as a reader scrolls
    button.click()


def _saved_lines(out: Path) -> list[dict]:
    path = out / "answers.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _check_screenshot(driver, path: Path) -> None:
    """The PNG is the viewport's size, not blank, and shows the page's dark bar and the orange of
    the current search match (so the highlight really rendered)."""
    from PIL import Image, ImageStat

    assert driver.save_screenshot(str(path)) and path.stat().st_size > 10_000
    width, height, ratio = driver.execute_script(
        "return [document.documentElement.clientWidth, window.innerHeight, window.devicePixelRatio]"
    )
    with Image.open(path) as img:
        rgb = img.convert("RGB")
    assert abs(rgb.width - width * ratio) <= 20 and abs(rgb.height - height * ratio) <= 2, (rgb.size, width)
    assert ImageStat.Stat(rgb.convert("L")).stddev[0] > 30  # not one flat colour
    colours = dict((c, n) for n, c in rgb.getcolors(maxcolors=1 << 22))
    assert len(colours) > 100
    assert colours.get((0x1D, 0x23, 0x30), 0) > 20_000  # the top bar
    assert colours.get((0xFF, 0x9F, 0x1C), 0) > 200  # the current match's highlight


@pytest.mark.slow
def test_a_person_answers_through_the_page_survives_a_killed_server_and_is_scored(
    driver, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    build = build_setting(tmp_path / "build", tasks=8, docs=6)
    prompts = json.loads((build / "hard_30K.json").read_text())
    out, log = tmp_path / "ana", tmp_path / "server.log"
    proc, url = _serve(build, out, log)
    try:
        driver.get(url)
        _at(driver, 1)
        # the page as a person reads it: the key, numbered documents, progress
        key = prompts["0"][0]
        assert _text(driver, "key") == key
        assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".doc .num")] == [
            str(i) for i in range(6)
        ]
        body = driver.find_element(By.TAG_NAME, "body").text
        assert all(f"Document {i}" in body for i in range(6)) and "0 of 5 answered" in body
        assert "Paper 0-3: a study of retrieval" in body  # the documents' own text

        # search within the page: every occurrence highlighted, in the documents that cite the key
        _type(driver, "search", key.lower())
        driver.find_element(By.ID, "search").send_keys(Keys.ENTER)
        _until(driver, lambda d: _text(d, "matches").startswith("match 1 of 2"), "two matches")
        marks = driver.find_elements(By.CSS_SELECTOR, ".doc mark")
        cited = sorted(
            int(m.find_element(By.XPATH, "ancestor::article").get_attribute("data-index")) for m in marks
        )
        assert cited == gold_of(0, 6) and all(m.text == key for m in marks)
        _type(driver, "indexes", "0, 1")
        assert len(driver.find_elements(By.CSS_SELECTOR, ".doc.marked")) == 2  # the field marks documents
        _check_screenshot(driver, tmp_path / "task1.png")

        # task 1: typed; task 2: a wrong index is refused, then the per-document buttons (one miss
        # planted); task 3: "none"
        driver.find_element(By.ID, "indexes").send_keys(Keys.ENTER)
        _at(driver, 2)
        assert _saved_lines(out)[0]["indexes"] == [0, 1]
        _type(driver, "indexes", "9")
        driver.find_element(By.ID, "save").click()
        _until(driver, lambda d: "There is no document 9" in _text(d, "status"), "refused index")
        _type(driver, "indexes", "")
        _mark(driver, gold_of(1, 6)[0])
        assert driver.find_element(By.ID, "indexes").get_attribute("value") == str(gold_of(1, 6)[0])
        driver.find_element(By.ID, "save").click()
        _at(driver, 3)
        _type(driver, "indexes", "none")
        driver.find_element(By.ID, "save").click()
        _at(driver, 4)
        assert [e["task"] for e in _saved_lines(out)] == ["0", "1", "2"]

        # the server dies (SIGKILL: no chance to clean up); the page says the answer was not saved
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _type(driver, "indexes", "3, 4")
        driver.find_element(By.ID, "save").click()
        _until(driver, lambda d: "Not saved: the server did not answer" in _text(d, "status"), "not saved")
        assert driver.find_element(By.ID, "indexes").get_attribute("value") == "3, 4"  # kept for a retry
        assert len(_saved_lines(out)) == 3

        # restarted, the page resumes at the first unanswered task with the three answers kept
        proc, url = _serve(build, out, log)
        driver.get(url)
        _at(driver, 4)
        assert _text(driver, "answered") == "3 of 5 answered"
        _type(driver, "indexes", ", ".join(map(str, gold_of(3, 6))))
        driver.find_element(By.ID, "save").click()
        _at(driver, 5)
        for i in gold_of(4, 6):
            _mark(driver, i)
        driver.find_element(By.ID, "save").click()
        _until(driver, lambda d: d.find_element(By.ID, "done").is_displayed(), "the done screen")
        assert "5 of 5 tasks of hard_30K answered as human:ana" in _text(driver, "done")
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop
        assert proc.wait(timeout=30) == 0
    assert "stopped with 5 of 5 answered" in log.read_text()
    assert "task 3 of 5 saved" in log.read_text()  # progress lines on stderr

    saved = _saved_lines(out)
    assert [e["task"] for e in saved] == ["0", "1", "2", "3", "4"]
    assert all(e["seconds"] > 0 for e in saved)  # timed by the page
    res = CliRunner().invoke(
        main, ["eval", "score", "--build", str(build), "--predictions", str(out), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    figures = json.loads(res.output)["overall"]
    # correct: tasks 1, 4, 5; task 2 missed a document, task 3 answered none: two Type I errors
    assert (figures["n"], figures["exacc"], figures["type_i"], figures["type_ii"], figures["missing"]) == (
        5,
        0.6,
        2,
        0,
        0,
    )


def test_without_chromium_the_browser_test_skips_with_its_reason_but_fails_in_ci(
    monkeypatch, tmp_path
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("REFLONG_REQUIRE_BROWSER", raising=False)
    monkeypatch.delenv("REFLONG_REQUIRE_SHARED", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs Debian's chromium and chromium-driver"):
        _browser_or_skip()
    for variable in ("REFLONG_REQUIRE_BROWSER", "REFLONG_REQUIRE_SHARED"):
        with monkeypatch.context() as env:
            env.setenv(variable, "1")
            with pytest.raises(pytest.fail.Exception, match="this run must have it"):
                _browser_or_skip()
