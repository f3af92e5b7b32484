"""The mpi2nccl kernel over the Jupyter protocol: displays of each type, magics, completion, cell line numbers,
output limits.

Run by ./build.sh test (Debian's python, JUPYTER_PATH=build/jupyter). The rank engines' tests are in
test_rank_engines.py.
"""
import base64
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import unittest

from kernel_client import (PNG_MAGIC, Kernel, alive, descendants, interrupt_after, job_homes, pids_of,
                           wait_gone)


class Displays(unittest.TestCase):
    """Each kind of output, errors and magics in the kernel itself."""

    @classmethod
    def setUpClass(cls):
        cls.k = Kernel()
        cls.addClassCleanup(cls.k.shutdown)

    def run_ok(self, code, **kw):
        r = self.k.execute(code, **kw)
        self.assertTrue(r.ok, r.describe())
        return r

    def test_stream_and_value(self):
        r = self.run_ok('System.out.println("hello"); System.err.println("careful");\n40 + 2')
        self.assertEqual("hello\n", r.stdout)
        self.assertEqual("careful\n", r.stderr)
        self.assertEqual("42", r.result["text/plain"])

    def test_statement_has_no_result(self):
        r = self.run_ok("int declared = 5;")
        self.assertIsNone(r.result)

    def test_table_is_html_and_cut_with_a_note(self):
        r = self.run_ok('Table t = Table.create("squares", IntColumn.create("n", IntStream.range(0, 30).toArray()),\n'
                        '    IntColumn.create("n2", IntStream.range(0, 30).map(i -> i * i).toArray()));\nt')
        html = r.result["text/html"]
        self.assertIn('<th style="text-align:right">n2</th>', html)   # a number column: right-aligned
        self.assertIn(">361</td>", html)       # row 19 is shown
        self.assertNotIn(">400</td>", html)    # row 20 is cut
        self.assertIn("showing the first 20 of 30 rows", html)

    def test_chart_is_png_and_svg_on_request(self):
        self.run_ok('XYChart chart = new XYChartBuilder().width(320).height(240).title("y = x^2").build();\n'
                    'chart.addSeries("y", new double[]{1, 2, 3}, new double[]{1, 4, 9});')
        r = self.run_ok("chart")
        self.assertTrue(base64.b64decode(r.result["image/png"]).startswith(PNG_MAGIC))
        r = self.run_ok('display(chart, "image/svg+xml");')
        shown = r.of_type("display_data")
        self.assertEqual(1, len(shown), r.describe())
        self.assertIn("<svg", shown[0]["content"]["data"]["image/svg+xml"])

    def test_buffered_image_is_png(self):
        r = self.run_ok("var img = new java.awt.image.BufferedImage(16, 8, java.awt.image.BufferedImage.TYPE_INT_RGB);\n"
                        "img.setRGB(3, 3, 0xff0000);\nimg")
        png = base64.b64decode(r.result["image/png"])
        self.assertTrue(png.startswith(PNG_MAGIC))

    def test_progress_updates_in_place(self):
        r = self.run_ok('try (Progress p = Progress.start("epoch", 10)) {\n'
                        '  for (int e = 0; e < 10; e++) { Thread.sleep(60); p.step("loss %.2f", 1.0 / (e + 1)); }\n}')
        shown = r.of_type("display_data")
        updates = r.of_type("update_display_data")
        self.assertEqual(1, len(shown), r.describe())
        display_id = shown[0]["content"]["transient"]["display_id"]
        self.assertGreaterEqual(len(updates), 2, "the bar should be updated in place")
        self.assertTrue(all(u["content"]["transient"]["display_id"] == display_id for u in updates))
        last = updates[-1]["content"]["data"]
        self.assertIn("10/10", last["text/plain"])
        self.assertIn("loss 0.10", last["text/plain"])
        self.assertIn('<progress', last["text/html"])

    def test_compile_error_names_the_line(self):
        r = self.k.execute("int a = 1;\nint b = a + undefinedThing;")
        self.assertFalse(r.ok)
        ename, evalue, tb = r.error
        self.assertIn("cannot find symbol", evalue)
        self.assertIn("line 2", tb)
        self.assertIn("undefinedThing", tb)

    def test_table_decimals_are_rounded(self):
        r = self.run_ok('Table.create("t", DoubleColumn.create("time (ms)", 0.41185330750000004, 12.0))')
        html = r.result["text/html"]
        self.assertIn(">0.412</td>", html)
        self.assertNotIn("0.41185", html)

    def test_array_is_a_grid_of_its_corners(self):
        r = self.run_ok("var a = org.mpi2nccl.tensor.NDArray.arange(org.mpi2nccl.tensor.Device.cpu(), 10000)"
                        ".reshape(100, 100);\na")
        html = r.result["text/html"]
        self.assertIn("NDArray [100, 100] float32 on cpu", html)
        for corner in (">0<", ">2<", ">99<", ">9900<", ">9999<"):
            self.assertIn(corner, html)
        self.assertNotIn(">5050<", html, "the middle is left out")
        self.assertIn("NDArray [100, 100] float32 on cpu", r.result["text/plain"])

    def test_chart_carries_its_display_size(self):
        r = self.run_ok('XYChart small = new XYChartBuilder().width(320).height(240).build();\n'
                        'small.addSeries("y", new double[]{1, 2}, new double[]{1, 4});\nsmall')
        md = r.of_type("execute_result")[0]["content"]["metadata"]
        self.assertEqual({"width": 320, "height": 240}, md["image/png"])

    def test_exception_names_the_cell_lines(self):
        r = self.k.execute("int zero = 0;\n\nint inverse(int v) {\n  return 1 / v;\n}\ninverse(zero)")
        self.assertFalse(r.ok)
        tb = r.error[2]
        self.assertIn("java.lang.ArithmeticException", tb)
        self.assertIn("at inverse(cell line 4)", tb)
        self.assertIn("(cell line 6)", tb)
        self.assertNotIn("#", tb)

    def test_lines_after_a_line_magic_count_it(self):
        r = self.k.execute("%classpath\nint c = 1;\nint d = c + missingOne;")
        self.assertFalse(r.ok)
        self.assertIn("line 3: cannot find symbol", r.error[2])

    def test_a_tensor_given_to_a_communicator_gets_the_call_that_converts(self):
        r = self.k.execute("org.mpi2nccl.comm.Communicator comm = null;\n"
                           "org.mpi2nccl.autograd.Tensor t = null;\n"
                           "comm.allReduce(t, org.mpi2nccl.comm.Reduction.SUM);")
        self.assertFalse(r.ok)
        self.assertIn("comm.allReduce(tensor.data(), Reduction.SUM)", r.error[2])

    def test_complete_and_inspect_in_an_ordinary_cell(self):
        self.run_ok("int completionTarget = 1;\nint twiceOf(int v) { return 2 * v; }")
        c = self.k.complete("int y = completionTar")
        self.assertIn("completionTarget", c["matches"])
        self.assertEqual(8, c["cursor_start"])
        i = self.k.inspect("twiceOf(2)", 3)
        self.assertTrue(i["found"], i)
        self.assertIn("int twiceOf(int v)", i["data"]["text/plain"])

    def test_exception_keeps_its_class(self):
        r = self.k.execute('Object o = "text";\nInteger i = (Integer) o;')
        self.assertFalse(r.ok)
        self.assertIn("java.lang.ClassCastException", r.error[2])

    def test_unknown_magic_and_mpj_without_engines_are_explained(self):
        r = self.k.execute("%nosuchmagic 1")
        self.assertFalse(r.ok)
        self.assertIn("unknown magic %nosuchmagic", r.error[2])
        r = self.k.execute("%%mpj\nrank")
        self.assertFalse(r.ok)
        self.assertIn("%mpj start -np 4", r.error[2])
        r = self.k.execute("%mpj start -np two")
        self.assertFalse(r.ok)
        self.assertIn("-np", r.error[2])

    def test_jars_adds_a_jar(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "Greeter.java")
            with open(src, "w") as f:
                f.write("package demo; public class Greeter { public static String hi() { return \"hi from a jar\"; } }")
            subprocess.run(["javac", "-d", os.path.join(d, "classes"), src], check=True)
            subprocess.run(["jar", "cf", os.path.join(d, "greeter.jar"), "-C", os.path.join(d, "classes"), "."], check=True)
            r = self.run_ok(f"%jars {d}/*.jar\ndemo.Greeter.hi()")
            self.assertEqual("hi from a jar", r.result["text/plain"])

    def test_system_exit_in_a_cell_fails_the_cell_and_the_kernel_lives(self):
        pid = self.k.pid
        for code in ["int code = 0;\nSystem.exit(code);", "Runtime.getRuntime().halt(1);"]:
            r = self.k.execute(code, timeout=30)
            self.assertFalse(r.ok, r.describe())
            self.assertIn("is not allowed in a cell: the kernel keeps running", r.error[2])
            self.assertIn("%mpj stop", r.error[2])
        self.assertTrue(alive(pid))
        self.assertEqual("2", self.run_ok("1+1").result["text/plain"])
        r = self.run_ok('"System.exit(0)" // System.exit(0)')      # in a string or a comment it is only text
        self.assertEqual("System.exit(0)", r.result["text/plain"])

    def test_a_cell_printing_a_million_lines_is_cut_with_a_note_naming_the_file(self):
        r = self.k.execute('for (int i = 0; i < 1_000_000; i++) System.out.println("line " + i);', timeout=120)
        self.assertTrue(r.ok, r.describe())
        streams = r.of_type("stream")
        self.assertLessEqual(len(r.stdout), 1 << 20)
        self.assertTrue(r.stdout.startswith("line 0\nline 1\n"), r.stdout[:100])
        self.assertLess(len(streams), 400, "output coalesced into few messages")
        m = re.search(r"\[output cut at 1024 KB: (\d+) more bytes are in (\S+)\]", r.stderr)
        self.assertIsNotNone(m, r.stderr[-500:])
        with open(m.group(2)) as f:
            rest = f.read()
        os.remove(m.group(2))
        self.assertEqual(int(m.group(1)), len(rest.encode()))
        self.assertTrue(rest.endswith("line 999999\n"))
        self.assertEqual(len((r.stdout + rest).splitlines()), 1_000_000)
        start = time.time()
        self.assertEqual("2", self.run_ok("1+1").result["text/plain"])
        self.assertLess(time.time() - start, 2)

    def test_an_endless_printing_cell_is_interrupted_and_the_kernel_answers_quickly(self):
        t = interrupt_after(self.k, 2)
        r = self.k.execute('long n = 0;\nwhile (true) System.out.println("again " + n++);', timeout=60)
        t.join()
        self.assertFalse(r.ok)
        self.assertIn("Interrupted", r.error[2])
        self.assertIn("[output cut at", r.stderr)
        start = time.time()
        self.assertEqual("2", self.run_ok("1+1", timeout=10).result["text/plain"])
        self.assertLess(time.time() - start, 2)

    def test_interrupt_stops_an_endless_loop(self):
        t = interrupt_after(self.k, 1.5)
        r = self.k.execute("long spins = 0;\nwhile (true) { spins++; }", timeout=60)
        t.join()
        self.assertFalse(r.ok)
        self.assertIn("Interrupted", r.error[2])
        self.assertEqual("3", self.run_ok("1 + 2").result["text/plain"])


if __name__ == "__main__":
    unittest.main()
