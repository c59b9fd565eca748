"""Name the language of a file from its extension (or well-known file name)."""

from __future__ import annotations

from pathlib import PurePosixPath

_BY_EXTENSION = {
    "py": "python", "pyi": "python", "ipynb": "python",
    "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript",
    "ts": "typescript", "tsx": "typescript", "mts": "typescript", "cts": "typescript",
    "go": "go", "rs": "rust", "java": "java", "kt": "kotlin", "kts": "kotlin",
    "scala": "scala", "swift": "swift", "m": "objective-c", "mm": "objective-c",
    "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp",
    "cs": "csharp", "fs": "fsharp", "rb": "ruby", "php": "php", "pl": "perl", "lua": "lua",
    "r": "r", "jl": "julia", "dart": "dart", "ex": "elixir", "exs": "elixir", "erl": "erlang",
    "hs": "haskell", "clj": "clojure", "zig": "zig", "nim": "nim", "vue": "vue",
    "svelte": "svelte", "sh": "shell", "bash": "shell", "zsh": "shell", "fish": "shell",
    "ps1": "powershell", "psm1": "powershell", "bat": "batch", "cmd": "batch",
    "sql": "sql", "html": "html", "htm": "html", "css": "css", "scss": "scss", "sass": "sass",
    "less": "less", "md": "markdown", "mdx": "markdown", "rst": "restructuredtext",
    "txt": "text", "json": "json", "jsonl": "json", "yaml": "yaml", "yml": "yaml",
    "toml": "toml", "ini": "ini", "cfg": "ini", "xml": "xml", "proto": "protobuf",
    "graphql": "graphql", "gql": "graphql", "tf": "terraform", "hcl": "hcl",
    "dockerfile": "dockerfile", "gradle": "groovy", "groovy": "groovy",
}
_BY_NAME = {"dockerfile": "dockerfile", "makefile": "makefile", "gemfile": "ruby",
            "rakefile": "ruby", "cmakelists.txt": "cmake", "justfile": "just"}


def language_for(path: str) -> str:
    """Return a lowercase language name, or 'other' when the extension is unknown."""
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    suffix = name.rsplit(".", 1)[1] if "." in name else ""
    return _BY_EXTENSION.get(suffix, "other")
