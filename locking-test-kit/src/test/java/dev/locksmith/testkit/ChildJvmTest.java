package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real child JVM: its command line, output file, input pipe and the four signals. */
class ChildJvmTest {
  private static final Duration EXIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private ChildJvmBuilder echo(String name) {
    return ChildJvm.builder(EchoMain.class)
        .jvmOptions("-Xmx64m", "-XX:TieredStopAtLevel=1")
        .systemProperty("echo.name", "value of " + name)
        .output(dir.resolve("logs").resolve(name + ".log"));
  }

  private static String log(ChildJvm child) throws IOException {
    return Files.exists(child.log()) ? Files.readString(child.log()) : "";
  }

  /** Sends {@code line} to the child and waits until its echo is in the log. */
  private static void sendAndAwaitEcho(ChildJvm child, String line) {
    child.send(line);
    await().atMost(EXIT).until(() -> log(child).contains("echo " + line));
  }

  /** The process state letter from {@code /proc}: {@code T} while stopped. */
  private static char state(ChildJvm child) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(child.pid()), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }

  @Test
  void systemPropertiesAndArgumentsReachTheChildAndItsOutputGoesToTheFile() throws Exception {
    try (ChildJvm child = echo("args").args("one", "two words").start()) {
      assertThat(child.awaitExit(EXIT)).as("exit code; log %s", child.log()).isZero();
      assertThat(log(child))
          .contains("property value of args")
          .contains("args one,two words")
          .contains("error output of value of args")
          .contains("shutdown hook ran");
    }
  }

  @Test
  void withAnErrorOutputFileStandardErrorGoesThereAndNotToTheOutputFile() throws Exception {
    Path errors = dir.resolve("errors").resolve("split.err");
    try (ChildJvm child = echo("split").errorOutput(errors).start()) {
      assertThat(child.awaitExit(EXIT)).as("exit code; log %s", child.log()).isZero();
      assertThat(log(child)).contains("property value of split").doesNotContain("error output");
      assertThat(Files.readAllLines(errors)).containsExactly("error output of value of split");
    }
  }

  @Test
  void withPipedStdoutTheCallerReadsTheAnswersAndTheOutputFileGetsStandardError() throws Exception {
    try (ChildJvm child = echo("piped").pipeStdin().pipeStdout().start()) {
      BufferedReader answers =
          new BufferedReader(
              new InputStreamReader(child.process().getInputStream(), StandardCharsets.UTF_8));
      assertThat(answers.readLine()).isEqualTo("property value of piped");
      assertThat(answers.readLine()).isEqualTo("args ");
      child.send("ping");
      assertThat(answers.readLine()).isEqualTo("echo ping");
      child.send("exit");
      assertThat(child.awaitExit(EXIT)).as("exit code; log %s", child.log()).isZero();
      assertThat(Files.readAllLines(child.log())).containsExactly("error output of value of piped");
    }
  }

  @Test
  void withAppendedOutputChildrenInTurnWriteOneLog() throws Exception {
    Path log = dir.resolve("shared.log");
    for (String name : new String[] {"first", "second"}) {
      try (ChildJvm child =
          ChildJvm.builder(EchoMain.class)
              .jvmOptions("-Xmx64m", "-XX:TieredStopAtLevel=1")
              .systemProperty("echo.name", name)
              .output(log)
              .appendOutput()
              .start()) {
        assertThat(child.awaitExit(EXIT)).as("exit code; log %s", log).isZero();
      }
    }
    assertThat(Files.readString(log)).contains("property first").contains("property second");
  }

  @Test
  void commandLineHasTheJavaBinaryOptionsPropertiesClassPathMainClassAndArgumentsInOrder() {
    assertThat(
            ChildJvm.builder("x.Main")
                .javaBinary(Path.of("/opt/java/bin/java"))
                .classPath("a.jar:b.jar")
                .jvmOptions("-Xmx64m")
                .systemProperty("k", "v")
                .args("arg")
                .command())
        .containsExactly(
            "/opt/java/bin/java", "-Xmx64m", "-Dk=v", "-cp", "a.jar:b.jar", "x.Main", "arg");
  }

  @Test
  void sentLinesReachAPipedStdinAndAPausedChildAnswersOnlyAfterItIsResumed() throws Exception {
    try (ChildJvm child = echo("pipe").pipeStdin().start()) {
      sendAndAwaitEcho(child, "first");

      child.pause();
      await().atMost(Duration.ofSeconds(10)).until(() -> state(child) == 'T');
      child.send("second");
      assertThat(state(child)).as("still stopped after a line was sent").isEqualTo('T');
      assertThat(log(child)).doesNotContain("echo second");

      child.resume();
      await().atMost(EXIT).until(() -> log(child).contains("echo second"));
      child.send("exit");
      assertThat(child.awaitExit(EXIT)).isZero();
    }
  }

  @Test
  void terminateSendsSigtermSoShutdownHooksRun() throws Exception {
    try (ChildJvm child = echo("term").pipeStdin().start()) {
      sendAndAwaitEcho(child, "ready");
      child.terminate();
      assertThat(child.awaitExit(EXIT)).as("128 + SIGTERM").isEqualTo(143);
      assertThat(log(child)).contains("shutdown hook ran");
    }
  }

  @Test
  void killSendsSigkillSoNothingRunsAfterwards() throws Exception {
    try (ChildJvm child = echo("kill").pipeStdin().start()) {
      sendAndAwaitEcho(child, "ready");
      child.kill();
      assertThat(child.awaitExit(EXIT)).as("128 + SIGKILL").isEqualTo(137);
      assertThat(child.isAlive()).isFalse();
      assertThat(log(child)).doesNotContain("shutdown hook ran");
    }
  }

  @Test
  void aChildThatOutlivesItsWaitIsKilledAndNamedInTheError() throws Exception {
    try (ChildJvm child = echo("slow").pipeStdin().start()) {
      assertThatThrownBy(() -> child.awaitExit(Duration.ofMillis(200)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(EchoMain.class.getName())
          .hasMessageContaining("pid " + child.pid())
          .hasMessageContaining("did not exit within PT0.2S");
      await().atMost(EXIT).until(() -> !child.isAlive());
    }
  }

  @Test
  void startWithoutAnOutputFileSaysWhatIsMissing() {
    assertThatThrownBy(() -> ChildJvm.builder(EchoMain.class).start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(EchoMain.class.getName())
        .hasMessageContaining("output(Path)");
  }
}
