"""The default theme's scripts in a real browser: the light/dark toggle and the code blocks' copy
buttons and line numbers (assets/js/theme.js). Chromium missing → skip, unless CI is set (then fail)."""
import os

import pytest

import search_support as support
from conftest import build_site

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

POST = """---
title: コードの記事
date: 2024-01-05
slug: code
---
本文です。

```swift:App.swift {linenos}
let a = 1
let b = 2
let c = 3
```

```swift
print("hi")
```
"""


@pytest.fixture(scope="module")
def browser():
    try:
        driver = support.make_chromium()
    except Exception as error:  # noqa: BLE001 - any start-up failure means no browser here
        if CI:
            pytest.fail(f"Chromium unavailable: {error}")
        pytest.skip(f"Chromium unavailable: {error}")
    yield driver
    driver.quit()


@pytest.fixture
def site_url(tmp_path, serve_dir):
    source = tmp_path / "site"
    (source / "content" / "posts").mkdir(parents=True)
    (source / "blog.yml").write_text("title: T\nlanguage: ja\n", encoding="utf-8")
    (source / "content" / "posts" / "code.md").write_text(POST, encoding="utf-8")
    build_site(source, tmp_path / "out")
    return serve_dir(tmp_path / "out")


def scheme(driver, value):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": value}]})


def background(driver):
    return driver.execute_script("return getComputedStyle(document.body).backgroundColor")


def test_toggle_remembers_the_choice_and_else_follows_the_system(browser, site_url):
    from selenium.webdriver.common.by import By
    scheme(browser, "light")
    browser.get(site_url + "/posts/code/")
    browser.execute_script("localStorage.clear()")
    browser.get(site_url + "/posts/code/")
    light = background(browser)
    toggle = browser.find_element(By.ID, "blog-theme-toggle")
    assert toggle.is_displayed()
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    dark = background(browser)
    assert dark != light
    assert toggle.get_attribute("aria-pressed") == "true"
    # Remembered on the next page, whatever the system says.
    browser.get(site_url + "/")
    assert browser.execute_script("return document.documentElement.getAttribute('data-theme')") == "dark"
    assert background(browser) == dark
    # With no stored choice, the system's setting applies.
    browser.execute_script("localStorage.removeItem('blog-theme')")
    scheme(browser, "dark")
    browser.get(site_url + "/")
    assert background(browser) == dark
    assert browser.find_element(By.ID, "blog-theme-toggle").get_attribute("aria-pressed") == "true"
    scheme(browser, "light")
    browser.get(site_url + "/")
    assert background(browser) == light


def test_copy_button_works_from_the_keyboard_and_announces(browser, site_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(site_url + "/posts/code/")
    buttons = browser.find_elements(By.CSS_SELECTOR, ".code-copy")
    assert len(buttons) == 2, "one button per code block"
    assert all(b.tag_name == "button" and b.text == "コピー" for b in buttons)
    # Line numbers only where the fence asked, and outside the copied code.
    numbers = browser.find_elements(By.CSS_SELECTOR, ".code-line-numbers")
    assert [n.text for n in numbers] == ["1\n2\n3"]
    browser.execute_script("window.__copied = null; navigator.clipboard.writeText = function (t) { window.__copied = t; return Promise.resolve(); };")
    buttons[0].send_keys(Keys.ENTER)
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return window.__copied") is not None)
    assert browser.execute_script("return window.__copied") == "let a = 1\nlet b = 2\nlet c = 3\n"
    WebDriverWait(browser, 5).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[aria-live='polite']"))
    WebDriverWait(browser, 5).until(
        lambda d: any(e.get_attribute("textContent") == "コピーしました" for e in d.find_elements(By.CSS_SELECTOR, "[aria-live='polite']")))
    assert buttons[0].text == "コピーしました"
