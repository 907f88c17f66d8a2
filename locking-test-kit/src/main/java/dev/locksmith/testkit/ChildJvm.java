package dev.locksmith.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for tests that need a separate process: the java binary, class path, JVM options,
 * system properties, main class and arguments of the caller's choice, its output in a file
 * (standard error merged, or in a file of its own) or a pipe the caller reads, its standard input
 * either empty or a pipe the test writes lines to. Faults: {@link #terminate()} (SIGTERM), {@link
 * #kill()} (SIGKILL), {@link #pause()} (SIGSTOP), {@link #resume()} (SIGCONT).
 *
 * <pre>{@code
 * try (ChildJvm child =
 *     ChildJvm.builder(Worker.class)
 *         .jvmOptions("-Xmx96m", "-XX:TieredStopAtLevel=1")
 *         .systemProperty("locksmith.url", url)
 *         .args("hold", lockId)
 *         .output(dir.resolve("worker.log"))
 *         .pipeStdin()
 *         .start()) {
 *   child.send("go");
 *   child.pause();
 *   child.resume();
 *   assertThat(child.awaitExit(Duration.ofSeconds(30))).isZero();
 * }
 * }</pre>
 *
 * <p>By default the child runs this JVM's {@code java} with this JVM's class path, no JVM options
 * and an empty standard input. Signals other than SIGKILL are sent with the {@code kill} command,
 * so they need a POSIX system.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final String description;

  ChildJvm(Process process, Path log, String description) {
    this.process = process;
    this.log = log;
    this.description = description;
  }

  /**
   * A builder for a child running {@code mainClass}.
   *
   * @param mainClass the class whose main method runs
   * @return a builder for a child running {@code mainClass}
   */
  public static ChildJvmBuilder builder(Class<?> mainClass) {
    return new ChildJvmBuilder(mainClass.getName());
  }

  /**
   * A builder for a child running the class named {@code mainClass}.
   *
   * @param mainClass the binary name of the class whose main method runs
   * @return a builder for a child running the class named {@code mainClass}
   */
  public static ChildJvmBuilder builder(String mainClass) {
    return new ChildJvmBuilder(mainClass);
  }

  /**
   * The child's process id.
   *
   * @return the child's process id
   */
  public long pid() {
    return process.pid();
  }

  /**
   * Whether the child still runs (a paused child does).
   *
   * @return whether the child still runs (a paused child does)
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * The file its output goes to.
   *
   * @return the file its output goes to
   */
  public Path log() {
    return log;
  }

  /**
   * The underlying process.
   *
   * @return the underlying process
   */
  public Process process() {
    return process;
  }

  /**
   * Sends one line to the child's standard input.
   *
   * @param line the line, without its newline
   * @throws IllegalStateException when the child was started without {@link
   *     ChildJvmBuilder#pipeStdin()}
   */
  public void send(String line) {
    try {
      OutputStream stdin = process.getOutputStream();
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + description, e);
    }
  }

  /** Asks the child to stop: SIGTERM, so its shutdown hooks run. */
  public void terminate() {
    signal("TERM");
  }

  /** Kills the child at once: SIGKILL, nothing runs in it afterwards. */
  public void kill() {
    process.destroyForcibly();
  }

  /** Freezes the child: SIGSTOP, as a long GC pause or a frozen VM would. */
  public void pause() {
    signal("STOP");
  }

  /** Thaws a paused child: SIGCONT. */
  public void resume() {
    signal("CONT");
  }

  /**
   * Waits for the child to exit.
   *
   * @param timeout the longest wait
   * @return its exit code
   * @throws IllegalStateException when it did not exit in time; it is killed then
   * @throws InterruptedException when interrupted
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(description + " did not exit within " + timeout);
    }
    return process.exitValue();
  }

  private void signal(String name) {
    Signals.send(name, pid(), description);
  }

  /** Kills the child if it still runs (a paused one too) and waits up to 10 s for it to go. */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "child JVM " + description;
  }
}
