"""How fast the human baseline's page is on a real setting, in Debian's headless Chromium.

    python bench/human_page.py --build reflong-demo/paper --setting hard_75K [--tasks 5]

Serves the setting's first --tasks tasks with ``reflong-build human``'s own server (in this
process, answers into a temporary folder), then for each task prints: the task's JSON size, the
time from asking for the task to its documents on screen, the time "Find the key" takes to
highlight every match, and the time a save takes (the answer fsynced, predictions and manifest
rewritten, the next task on screen). Needs /usr/bin/chromium and /usr/bin/chromedriver
(``apt-get install -y chromium chromium-driver``) and selenium (the dev extra).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from reflong.evaluate.human.session import open_session

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


def _browser(profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def _wait(driver, condition, timeout: float = 60.0) -> float:
    from selenium.webdriver.support.ui import WebDriverWait

    start = time.perf_counter()
    WebDriverWait(driver, timeout, poll_frequency=0.005).until(lambda d: condition(d))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--setting", default=None)
    parser.add_argument("--tasks", type=int, default=5)
    args = parser.parse_args()
    if not Path("/usr/bin/chromium").exists():
        print("needs /usr/bin/chromium: apt-get install -y chromium chromium-driver", file=sys.stderr)
        return 1
    from selenium.webdriver.common.by import By

    with tempfile.TemporaryDirectory() as tmp:
        server = open_session(args.build, Path(tmp) / "bench", "bench", args.setting, args.tasks, port=0)
        with server:
            driver = _browser(str(Path(tmp) / "profile"))
            try:
                rows = []
                start = time.perf_counter()
                driver.get(server.url)
                first = start  # set below, once task 1's documents are on screen
                for position in range(1, len(server.session.setting.tasks) + 1):
                    task = server.session.setting.tasks[position - 1]
                    n_docs = len(task.documents)
                    with urllib.request.urlopen(f"{server.url}api/task/{position}") as resp:
                        size = len(resp.read())
                    _wait(
                        driver,
                        lambda d, p=position, m=n_docs: (
                            d.find_element(By.ID, "position").text == f"Task {p} of {args.tasks}"
                            and len(d.find_elements(By.CSS_SELECTOR, ".doc")) == m
                        ),
                    )
                    if position == 1:
                        first = time.perf_counter() - start
                    start = time.perf_counter()
                    driver.find_element(By.ID, "find-key").click()
                    _wait(driver, lambda d: d.find_element(By.ID, "matches").text.startswith("match"))
                    search = time.perf_counter() - start
                    matches = len(driver.find_elements(By.CSS_SELECTOR, ".doc mark"))
                    field = driver.find_element(By.ID, "indexes")
                    field.send_keys(", ".join(map(str, task.gold)) or "none")
                    start = time.perf_counter()
                    driver.find_element(By.ID, "save").click()
                    _wait(
                        driver,
                        lambda d, p=position: f"Task {p} saved" in d.find_element(By.ID, "status").text,
                    )
                    saved = time.perf_counter() - start
                    rows.append((position, len(task.documents), size, search, matches, saved))
            finally:
                driver.quit()
    config = server.session.setting.config
    print(f"human page on {config} ({args.build}), {len(rows)} tasks, Chromium headless")
    print(f"page opened to task 1's documents on screen: {first:.3f} s")
    print("task  docs  task JSON  find key (s)  matches  save+next (s)")
    for position, docs, size, search, matches, saved in rows:
        print(
            f"{position:>4}  {docs:>4}  {size / 1024:>6.0f} KB  {search:>12.3f}  {matches:>7}  {saved:>13.3f}"
        )
    for name, column in (("find key", 3), ("save+next", 5)):
        values = [r[column] for r in rows]
        print(f"{name}: median {statistics.median(values):.3f} s, max {max(values):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
