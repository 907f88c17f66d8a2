package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.processing.LockedMethodIndexer;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.ChildJvmBuilder;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM started with {@code -javaagent:aspectjweaver.jar} weaves classes that javac compiled,
 * through the module's {@code META-INF/aop.xml}, and locks them on a TCP lock server in this JVM;
 * its engine comes from {@code -Dlocksmith.url}. The weaving check at start passes with the agent
 * and fails without it. The javac-compiled classes ({@code dev.locksmith.aspectj.ltw}, with their
 * own index in {@code target/ltw-classes}) are on the children's class path only.
 */
class LoadTimeWeavingTest {
  private static final String MAIN = "dev.locksmith.aspectj.ltw.LtwMain";
  private static final String START = "dev.locksmith.aspectj.ltw.LtwStart";

  @TempDir Path dir;

  @Test
  void theChildsClassesWereCompiledWithoutWeaving() throws Exception {
    try (URLClassLoader ltw = ltwClassLoader()) {
      assertThat(
              Arrays.stream(
                  Class.forName("dev.locksmith.aspectj.ltw.LtwJobs", false, ltw)
                      .getDeclaredMethods()))
          .extracting(Method::getName)
          .noneMatch(name -> name.contains("_aroundBody"));
    }
  }

  @Test
  void withoutTheAgentTheChildFailsAtStartNamingEveryUnwovenClass() throws Exception {
    Properties results = runChild(START, false, "mem:");

    assertThat(results.getProperty("verify"))
        .startsWith("failed: ")
        .contains("dev.locksmith.aspectj.ltw.LtwJobs.plain() has no effect")
        .contains("dev.locksmith.aspectj.ltw.LtwTwice.locked(AtomicInteger) has no effect")
        .contains("was not woven with dev.locksmith.aspectj.DistributedLockAspect")
        .contains("-javaagent:aspectjweaver.jar");
    assertThat(results.getProperty("call"))
        .as("the first locked call, of a class woven at compile time, creates the engine")
        .isEqualTo(results.getProperty("verify"));
    assertThat(results.getProperty("keyEvaluations")).as("the method did not run").isEqualTo("0");
  }

  @Test
  void withTheAgentTheSameStartPasses() throws Exception {
    Properties results = runChild(START, true, "mem:");

    assertThat(results)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "verify", "passed " + listedMethods(),
                "call", "returned twice-ltw:1",
                "keyEvaluations", "1"));
  }

  @Test
  void loadTimeWovenMethodsRunUnderTheirLocks() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      Properties results = runChild(MAIN, true, "tcp://127.0.0.1:" + port);

      assertThat(results)
          .containsExactlyInAnyOrderEntriesOf(
              Map.ofEntries(
                  Map.entry("verified", String.valueOf(listedMethods())),
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

  /**
   * Starts {@code main} in a child JVM whose engine comes from {@code url}, with the weaving agent
   * or without, waits up to 120 s for it to exit with 0 and reads the results it wrote.
   */
  private Properties runChild(String main, boolean agent, String url) throws Exception {
    Path out = dir.resolve("results.properties");
    Path log = dir.resolve("child.log");
    ChildJvmBuilder jvm =
        ChildJvm.builder(main)
            .systemProperty("locksmith.url", url)
            .classPath(childClassPath())
            .args(out.toString())
            .output(log);
    if (agent) {
      jvm.jvmOptions("-javaagent:" + weaverJar());
    }
    try (ChildJvm child = jvm.start()) {
      boolean exited = child.process().waitFor(120, TimeUnit.SECONDS);
      String childLog = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(exited).as("child exited; its log:%n%s", childLog).isTrue();
      assertThat(child.process().exitValue())
          .as("child exit code; its log:%n%s", childLog)
          .isZero();
    }
    Properties results = new Properties();
    try (var in = Files.newBufferedReader(out)) {
      results.load(in);
    }
    return results;
  }

  /**
   * This JVM's class path, without ajc (whose jar holds the weaver too: the agent's jar is the one
   * under test), and the load-time test's classes, which only the children see.
   */
  private static String childClassPath() {
    return Stream.concat(
            Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(
                    entry -> !Path.of(entry).getFileName().toString().startsWith("aspectjtools")),
            Stream.of(ltwClasses().toString()))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private static Path ltwClasses() {
    Path classes =
        Path.of(
            Objects.requireNonNull(
                System.getProperty("ltw.classes"),
                "system property ltw.classes (set by the surefire configuration)"));
    assertThat(classes.resolve(LockedMethodIndexer.INDEX)).isRegularFile();
    return classes;
  }

  private static URLClassLoader ltwClassLoader() throws Exception {
    return new URLClassLoader(
        new URL[] {ltwClasses().toUri().toURL()}, LoadTimeWeavingTest.class.getClassLoader());
  }

  /** The methods listed by the indexes of the test classes and of the load-time test's classes. */
  private static long listedMethods() throws Exception {
    long count = 0;
    try (URLClassLoader ltw = ltwClassLoader()) {
      Enumeration<URL> indexes = ltw.getResources(LockedMethodIndexer.INDEX);
      while (indexes.hasMoreElements()) {
        try (var in = indexes.nextElement().openStream()) {
          count +=
              new String(in.readAllBytes(), StandardCharsets.UTF_8)
                  .lines()
                  .filter(line -> !line.isBlank() && !line.startsWith("#"))
                  .count();
        }
      }
    }
    assertThat(count).as("methods listed by test-classes and ltw-classes").isGreaterThan(30);
    return count;
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
