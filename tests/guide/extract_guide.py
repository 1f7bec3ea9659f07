#!/usr/bin/env python3
"""Extracts the code blocks of the user guide (docs/guide/*.md) so that the tests compile and run them.

Every fenced block has a language, and each kind is used:
  ```cpp                    a whole program: compiled against the library and run (exit 0)
  ```cpp file=NAME          written to the chapter's work folder as NAME (a model plugin, ...)
  ```json file=NAME         likewise (data files)
  ```sh                     commands, run in order in the chapter's work folder with `variate` on
                            PATH; a command expected to fail is written `! command`
  ```python                 run with Debian's python3 in the work folder, after the chapter's commands
  ```text                   output or a listing shown to the reader: not run
Any other block is an error, so nothing in the guide is left untested by accident.

  extract_guide.py GUIDE_DIR OUT_DIR   writes OUT_DIR/<chapter>/ and OUT_DIR/manifest.cmake
"""
import pathlib
import re
import shutil
import sys

FENCE = re.compile(r"^```(\S*)(?:[ \t]+(.*))?$")


def blocks(path):
    """Yields (line, language, attributes, text) for each fenced block of the file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, language = i + 1, match.group(1)
        attributes = dict(a.split("=", 1) for a in (match.group(2) or "").split())
        i += 1
        body = []
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start}: a code block that is never closed")
        i += 1
        yield start, language, attributes, "\n".join(body) + "\n"


def cmake_list(items):
    return " ".join(f'"{item}"' for item in items)


def main():
    guide, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    programs, chapters_with_commands, chapters_with_python = [], [], []
    for chapter_file in sorted(guide.glob("*.md")):
        chapter = chapter_file.stem
        folder = out / chapter
        shutil.rmtree(folder, ignore_errors=True)  # no block deleted from the chapter lingers
        files = folder / "files"
        files.mkdir(parents=True, exist_ok=True)
        commands, python = [], []
        for line, language, attributes, text in blocks(chapter_file):
            where = f"{chapter_file.name}:{line}"
            if "file" in attributes:
                if language not in ("cpp", "json"):
                    raise SystemExit(f"{where}: file= is for cpp and json blocks, not '{language}'")
                (files / attributes["file"]).write_text(text, encoding="utf-8")
            elif language == "cpp":
                name = f"program_{line}"
                (folder / f"{name}.cpp").write_text(f"// {where}\n{text}", encoding="utf-8")
                programs.append(f"{chapter}/{name}")
            elif language == "sh":
                commands.append(f"# {where}\n{text}")
            elif language == "python":
                python.append(f"# {where}\n{text}")
            elif language != "text":
                raise SystemExit(f"{where}: a '{language or '(no language)'}' block; the guide's blocks are "
                                 "cpp, json, sh, python or text (extract_guide.py)")
        for name, parts in (("commands.sh", commands), ("script.py", python)):
            if parts:
                (folder / name).write_text("".join(parts), encoding="utf-8")
        if commands:
            chapters_with_commands.append(chapter)
        if python:
            chapters_with_python.append(chapter)
    (out / "manifest.cmake").write_text(
        f"set(VARIATE_GUIDE_PROGRAMS {cmake_list(programs)})\n"
        f"set(VARIATE_GUIDE_COMMANDS {cmake_list(chapters_with_commands)})\n"
        f"set(VARIATE_GUIDE_PYTHON {cmake_list(chapters_with_python)})\n", encoding="utf-8")


if __name__ == "__main__":
    main()
