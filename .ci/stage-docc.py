#!/usr/bin/env python3
"""Stages the package's DocC catalogs for .ci/docs, or writes the static site's index page.

    stage-docc.py OUT MODULE...            copies Sources/<MODULE>/<MODULE>.docc to OUT/<MODULE>.docc
    stage-docc.py --index FILE MODULE...   writes FILE, a page linking each module's documentation

The catalogs hold the guides and the repository's documents as symbolic links to docs/, so that
GitHub shows one text and the site another rendering of it. Their links between documents are
written for GitHub (`../CONTRACT.md`, `CONFORMANCE.md#race-rounds`, `#call-shapes`); in the staged
copy a link to a document that is an article of the catalog becomes a DocC link to that article
(`doc:CONTRACT`, with the heading's DocC anchor), and a link to a document that is not on the site
becomes the document's path in the repository, as text (`docs/results/...md`). Nothing else
changes.
"""

import html
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\[([^\]\n]*)\]\(((?:[\w.-]+/)*)([\w.-]+\.md)?(#[A-Za-z0-9_-]+)?\)")
FENCE = re.compile(r"^\s*```")


def github_slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def docc_anchor(heading):
    """DocC's anchor of a heading: punctuation dropped, its words joined by hyphens, case kept."""
    text = re.sub(r"[^\w\s-]|_", "", heading.strip())
    return "-".join(word for word in re.split(r"[\s-]+", text) if word)


def headings(text):
    """GitHub slug -> DocC anchor, for every heading of a Markdown text outside code blocks."""
    anchors = {}
    fenced = False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#")
            anchors.setdefault(github_slug(title), docc_anchor(title))
    return anchors


def rewrite(text, article, articles, folder):
    """`text` (the article `article`, whose Markdown file is in the repository's `folder`) with
    its links between documents made to work on the site."""

    def replace(match):
        label, directories, document, fragment = match.groups()
        if document is None:
            if fragment is None or directories:
                return match.group(0)
            name = article
        else:
            path = os.path.normpath(os.path.join(folder, directories + document))
            name = document[: -len(".md")]
            if name not in articles or os.path.dirname(path) != "docs":
                if label.strip("`").endswith(document):
                    return "`%s` in the repository" % path
                return "%s (`%s` in the repository)" % (label, path)
        anchor = ""
        if fragment:
            anchor = articles[name].get(fragment[1:])
            if anchor is None:
                sys.exit("stage-docc: %s links %s%s, a heading it does not have" % (article, document or "", fragment))
            anchor = "#" + anchor
        return "[%s](<doc:%s%s>)" % (label, name, anchor)

    lines = []
    fenced = False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        lines.append(line if fenced else LINK.sub(replace, line))
    return "\n".join(lines)


def stage(out, modules):
    for module in modules:
        source = os.path.join(ROOT, "Sources", module, module + ".docc")
        target = os.path.join(out, module + ".docc")
        shutil.copytree(source, target, symlinks=False)
        texts = {}
        folders = {}
        for name in os.listdir(target):
            if name.endswith(".md"):
                with open(os.path.join(target, name), encoding="utf-8") as file:
                    texts[name[: -len(".md")]] = file.read()
                # Where the file really lives (a guide or document linked into the catalog).
                real = os.path.realpath(os.path.join(source, name))
                folders[name[: -len(".md")]] = os.path.relpath(os.path.dirname(real), ROOT)
        articles = {name: headings(text) for name, text in texts.items()}
        for name, text in texts.items():
            staged = rewrite(text, name, articles, folders[name])
            if staged != text:
                with open(os.path.join(target, name + ".md"), "w", encoding="utf-8") as file:
                    file.write(staged)


def index(path, modules):
    items = "\n".join(
        '<li><a href="%s/documentation/%s/">%s</a></li>' % (m.lower(), m.lower(), html.escape(m)) for m in modules
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>TaskContract</title></head>\n'
        "<body><h1>TaskContract</h1>\n<ul>\n%s\n</ul></body></html>\n" % items
    )
    with open(path, "w", encoding="utf-8") as file:
        file.write(page)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--index":
        index(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) > 2:
        stage(sys.argv[1], sys.argv[2:])
    else:
        sys.exit(__doc__)
