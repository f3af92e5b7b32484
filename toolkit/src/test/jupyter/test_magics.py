"""The magics students bring from IJava and IPython, over the Jupyter protocol: %maven and %%loadFromPOM against a
file:// Maven repository built here, with the kernel's local repository in a temporary folder (MAVEN_REPO_LOCAL)
and Maven Central mirrored to that repository by a settings.xml (MAVEN_HOME/conf), so that nothing uses the
network; %%writefile then %load; %%html and %%markdown.

Run by ./build.sh test (Debian's python, JUPYTER_PATH=build/jupyter).
"""
import os
import pathlib
import subprocess
import tempfile
import unittest

from kernel_client import Kernel


def kernel_with_maven(tmp, repo_url):
    """A kernel whose %maven keeps jars in tmp/local and finds Maven Central's at repo_url (a settings.xml mirror)."""
    conf = pathlib.Path(tmp, "maven-home", "conf")
    conf.mkdir(parents=True)
    (conf / "settings.xml").write_text(
        "<settings><mirrors><mirror><id>course-mirror</id><mirrorOf>central</mirrorOf>"
        f"<url>{repo_url}</url></mirror></mirrors></settings>\n")
    env = {"MAVEN_REPO_LOCAL": os.path.join(tmp, "local"), "MAVEN_HOME": str(conf.parent)}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)   # the kernel inherits the test's environment
    try:
        return Kernel()
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def deploy(repo, group, artifact, version, java_class, source, dependencies="", classpath=()):
    """group:artifact:version in repo (a folder laid out as a Maven repository): a jar of one class and its POM."""
    folder = pathlib.Path(repo, *group.split("."), artifact, version)
    folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        src = pathlib.Path(work, "src", *java_class.split(".")[:-1], java_class.split(".")[-1] + ".java")
        src.parent.mkdir(parents=True)
        src.write_text(source)
        classes = os.path.join(work, "classes")
        subprocess.run(["javac", "-d", classes, "-cp", ":".join(map(str, classpath)) or ".", str(src)], check=True)
        jar = folder / f"{artifact}-{version}.jar"
        subprocess.run(["jar", "cf", str(jar), "-C", classes, "."], check=True)
    (folder / f"{artifact}-{version}.pom").write_text(
        f"<project><modelVersion>4.0.0</modelVersion><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"<version>{version}</version><dependencies>{dependencies}</dependencies></project>\n")
    return jar


class Magics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(cls.tmp.cleanup)
        root = pathlib.Path(cls.tmp.name)
        cls.repo = root / "remote"
        cls.local = root / "local"
        base = deploy(cls.repo, "demo", "base", "1.0", "demo.base.Base",
                      'package demo.base; public class Base { public static String word() { return "base"; } }')
        deploy(cls.repo, "demo", "greet", "1.0", "demo.greet.Greet",
               'package demo.greet; public class Greet { public static String hi() { return "hi from " + '
               'demo.base.Base.word(); } }',
               "<dependency><groupId>demo</groupId><artifactId>base</artifactId><version>1.0</version></dependency>",
               [base])
        deploy(cls.repo, "demo", "shout", "2.0", "demo.shout.Shout",
               'package demo.shout; public class Shout { public static String it(String s) { return s.toUpperCase(); } }')
        cls.repo_url = cls.repo.as_uri()
        # Maven Central stands for a second file repository (a settings.xml mirror): nothing goes to the network
        cls.mirror = root / "mirror"
        deploy(cls.mirror, "demo", "central", "3.0", "demo.central.Central",
               'package demo.central; public class Central { public static int answer() { return 42; } }')
        cls.k = kernel_with_maven(root, cls.mirror.as_uri())
        cls.addClassCleanup(cls.k.shutdown)

    def run_ok(self, code, **kw):
        r = self.k.execute(code, **kw)
        self.assertTrue(r.ok, r.describe())
        return r

    def assert_one_line_error(self, code, *expected):
        r = self.k.execute(code)
        self.assertFalse(r.ok, r.describe())
        text = r.error[2]
        self.assertEqual(1, len(text.strip().splitlines()), text)
        for e in expected:
            self.assertIn(e, text)
        self.assertEqual("2", self.run_ok("1 + 1").result["text/plain"], "the kernel answers after the error")
        return text

    def test_maven_adds_a_jar_and_what_it_needs_and_the_next_cell_uses_it(self):
        r = self.run_ok(f"%maven --repo {self.repo_url} demo:greet:1.0", timeout=120)
        self.assertIn("added 2 jars (1 needed by the requested): greet-1.0.jar, base-1.0.jar", r.stdout)
        self.assertTrue((self.local / "demo/base/1.0/base-1.0.jar").is_file(), "downloaded into MAVEN_REPO_LOCAL")
        r = self.run_ok("demo.greet.Greet.hi()")
        self.assertEqual("hi from base", r.result["text/plain"])

    def test_settings_mirror_stands_for_maven_central(self):
        r = self.run_ok("%maven demo:central:3.0", timeout=120)
        self.assertIn("added 1 jar: central-3.0.jar", r.stdout)
        self.assertEqual("42", self.run_ok("demo.central.Central.answer()").result["text/plain"])

    def test_load_from_pom_reads_the_cells_repository_and_dependencies(self):
        r = self.run_ok("%%loadFromPOM\n"
                        f"<repositories><repository><id>course</id><url>{self.repo_url}</url></repository></repositories>\n"
                        "<dependencies>\n  <dependency>\n    <groupId>demo</groupId><artifactId>shout</artifactId>\n"
                        "    <version>2.0</version>\n  </dependency>\n</dependencies>", timeout=120)
        self.assertIn("added 1 jar: shout-2.0.jar", r.stdout)
        self.assertEqual("LOUD", self.run_ok('demo.shout.Shout.it("loud")').result["text/plain"])

    def test_bad_coordinates_are_one_line_errors_and_the_kernel_lives(self):
        self.assert_one_line_error("%maven commons-lang3", "'commons-lang3' is not a Maven coordinate",
                                   "group:artifact:version")
        self.assert_one_line_error(f"%maven --repo {self.repo_url} demo:nothing:9", "demo:nothing:9 was found in none of",
                                   f"course-mirror ({self.mirror.as_uri()}", self.repo_url, "%maven --repo URL")
        self.assert_one_line_error("%maven --offline demo:never:1.0", "demo:never:1.0 is not in the local repository",
                                   str(self.local), "offline")
        self.assert_one_line_error("%maven", "%maven needs at least one coordinate")

    def test_writefile_then_load_runs_the_file_as_a_cell(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sub", "helpers.jsh")
            body = 'int twice(int x) { return 2 * x; }\nString accents = "héllo ∑";\n'
            r = self.run_ok(f"%%writefile {path}\n{body}")
            self.assertEqual(f"Writing {path}\n", r.stdout)
            self.assertEqual(body, pathlib.Path(path).read_text(encoding="utf-8"))
            r = self.run_ok(f"%%writefile {path}\n{body}")
            self.assertEqual(f"Overwriting {path}\n", r.stdout)
            self.run_ok(f"%load {os.path.join(d, 'sub', 'helpers')}")   # the extension may be left out
            self.assertEqual("42", self.run_ok("twice(21)").result["text/plain"])
            self.assertEqual("héllo ∑", self.run_ok("accents").result["text/plain"].strip('"'))
            self.assert_one_line_error(f"%load {d}/missing.jsh", f"%load: no file '{d}/missing.jsh'")

    def test_html_and_markdown_cells_are_displayed_as_such(self):
        r = self.run_ok("%%html\n<b>bold</b> and <i>italic</i>")
        shown = r.of_type("display_data")
        self.assertEqual(1, len(shown), r.describe())
        self.assertEqual("<b>bold</b> and <i>italic</i>", shown[0]["content"]["data"]["text/html"])
        r = self.run_ok("%%markdown\n# Title\n\n* one\n* two")
        shown = r.of_type("display_data")
        self.assertEqual(1, len(shown), r.describe())
        self.assertEqual("# Title\n\n* one\n* two", shown[0]["content"]["data"]["text/markdown"])


class MavenOnRankEngines(unittest.TestCase):
    """Jars %maven adds reach the running rank engines."""

    def test_running_engines_get_the_jars(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = pathlib.Path(tmp, "remote")
            deploy(repo, "demo", "ranked", "1.0", "demo.ranked.Ranked",
                   'package demo.ranked; public class Ranked { public static String of(int r) { return "ranked " + r; } }')
            k = kernel_with_maven(tmp, repo.as_uri())
            self.addCleanup(k.shutdown)
            r = k.execute("%mpj start -np 2", timeout=120)
            self.assertTrue(r.ok, r.describe())
            r = k.execute("%maven demo:ranked:1.0", timeout=120)
            self.assertTrue(r.ok, r.describe())
            r = k.execute("%%mpj\ndemo.ranked.Ranked.of(rank)", timeout=120)
            self.assertTrue(r.ok, r.describe())
            self.assertEqual("[rank 0] ranked 0\n[rank 1] ranked 1", r.result["text/plain"])
            self.assertTrue(k.execute("%mpj stop", timeout=60).ok)


if __name__ == "__main__":
    unittest.main()
