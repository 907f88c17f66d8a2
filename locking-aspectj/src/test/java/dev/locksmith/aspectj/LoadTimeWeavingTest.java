package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.tcp.server.LockServer;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM started with {@code -javaagent:aspectjweaver.jar} weaves classes that javac compiled,
 * through the module's {@code META-INF/aop.xml}, and locks them on a TCP lock server in this JVM;
 * its engine comes from {@code -Dlocksmith.url}.
 */
class LoadTimeWeavingTest {
  private static final String MAIN = "dev.locksmith.aspectj.ltw.LtwMain";

  @TempDir Path dir;

  @Test
  void theChildsClassesWereCompiledWithoutWeaving() throws Exception {
    assertThat(
            Arrays.stream(Class.forName("dev.locksmith.aspectj.ltw.LtwJobs").getDeclaredMethods()))
        .extracting(Method::getName)
        .noneMatch(name -> name.contains("_aroundBody"));
  }

  @Test
  void loadTimeWovenMethodsRunUnderTheirLocks() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      Path out = dir.resolve("results.properties");
      Path log = dir.resolve("child.log");
      Process child =
          new ProcessBuilder(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-javaagent:" + weaverJar(),
                      "-Dlocksmith.url=tcp://127.0.0.1:" + port,
                      "-cp",
                      System.getProperty("java.class.path"),
                      MAIN,
                      out.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean exited = child.waitFor(120, TimeUnit.SECONDS);
      if (!exited) {
        child.destroyForcibly();
      }
      String childLog = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(exited).as("child exited; its log:%n%s", childLog).isTrue();
      assertThat(child.exitValue()).as("child exit code; its log:%n%s", childLog).isZero();

      Properties results = new Properties();
      try (var in = Files.newBufferedReader(out)) {
        results.load(in);
      }
      assertThat(results)
          .containsExactlyInAnyOrderEntriesOf(
              Map.ofEntries(
                  Map.entry("woven", "true"),
                  Map.entry("plain", "ltw.plain"),
                  Map.entry("selfInvocation", "ltw.plain"),
                  Map.entry("private", "ltw.private"),
                  Map.entry("static", "ltw.static"),
                  Map.entry("key", "account:acct-7/3"),
                  Map.entry("reentrantSameToken", "true"),
                  Map.entry("skip", "Optional.empty"),
                  Map.entry("fail", "LockBusyException"),
                  Map.entry("waitTimeout", "LockTimeoutException"),
                  Map.entry("busyRuns", "0"),
                  Map.entry("waitDoneWhileHeld", "false"),
                  Map.entry("waitTokenAfterHolder", "true"),
                  Map.entry("twiceWovenLockId", "twice-ltw:1"),
                  Map.entry("twiceWovenEvaluations", "1"),
                  Map.entry("twiceAdvisedLockId", "twice-aspects:1"),
                  Map.entry("twiceAdvisedEvaluations", "1")));
    }
  }

  private static String weaverJar() {
    String jar =
        Objects.requireNonNull(
            System.getProperty("aspectjweaver.jar"),
            "system property aspectjweaver.jar (set by the surefire configuration)");
    assertThat(Path.of(jar)).isRegularFile();
    return jar;
  }
}
