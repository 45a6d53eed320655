"""MkDocs hook (mkdocs.yml, ``hooks:``): the site shows the pictures of the top-level assets/, outside docs_dir.

The pages link to each picture where it lies (``../assets/inspect.png`` from docs/, ``../../assets/…`` from
docs/tabs/), so that they show on any Git host without a build. MkDocs reads only docs_dir, so each file of assets/
joins the site's files under its path from docs_dir, where those links lead, and is written to site/assets/.

A raw ``<img src=…>`` (a picture given a width, as a phone's is) is no link MkDocs follows: its src is rewritten
here to the picture's place in the site, and one that leads to no file warns, which fails ``mkdocs build
--strict`` as a broken Markdown link does.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, InclusionLevel

ASSETS = "assets"  # beside mkdocs.yml, and the same name in the site
RAW_IMG_SRC = re.compile(r'(<img\b[^>]*?\bsrc=")([^"]+)(")')
log = logging.getLogger("mkdocs.hooks.assets")  # under "mkdocs": --strict counts its warnings


def on_files(files, config):
    root = Path(config.config_file_path).parent
    for path in sorted((root / ASSETS).rglob("*")):
        if path.is_file():  # included, as MkDocs would exclude the path from docs_dir for its leading ".."
            files.append(File(Path(os.path.relpath(path, config.docs_dir)).as_posix(), config.docs_dir,
                              config.site_dir, config.use_directory_urls,
                              dest_uri=path.relative_to(root).as_posix(), inclusion=InclusionLevel.INCLUDED))
    return files


def on_page_markdown(markdown, page, config, files):
    def in_site(match: re.Match) -> str:
        src = match[2]
        if re.match(r"[a-z]+:|/|#", src):  # a web address, a site-absolute path or an anchor: left as written
            return match[0]
        target = files.get_file_from_path(posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri),
                                                                            src)))
        if target is None:
            log.warning("%s: <img src=\"%s\"> leads to no file", page.file.src_uri, src)
            return match[0]
        return match[1] + target.url_relative_to(page.file) + match[3]

    return RAW_IMG_SRC.sub(in_site, markdown)
