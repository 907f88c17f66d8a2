package dev.locksmith.chaos;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A worker JVM with this JVM's class path, its output in a log file and its standard input a pipe
 * the test writes commands to ({@code go}, {@code stop}). Faults: {@link #pause()} (SIGSTOP),
 * {@link #resume()} (SIGCONT), {@link #kill()} (SIGKILL).
 */
final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final OutputStream stdin;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.stdin = process.getOutputStream();
  }

  /** Starts {@code mainClass} with the arguments. */
  static ChildJvm start(Class<?> mainClass, Path log, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of("-Xmx96m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new ChildJvm(process, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass.getName(), e);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  Path log() {
    return log;
  }

  /** Sends one line to the worker's standard input. */
  void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to worker " + pid() + " (see " + log + ")", e);
    }
  }

  /** Freezes the process: SIGSTOP, as a long GC pause or a frozen VM would. */
  void pause() {
    signal("STOP");
  }

  /** Thaws a paused process: SIGCONT. */
  void resume() {
    signal("CONT");
  }

  /** Kills the process at once: SIGKILL, nothing runs in it afterwards. */
  void kill() {
    process.destroyForcibly();
  }

  /**
   * Waits for the process to exit.
   *
   * @return its exit code
   * @throws IllegalStateException when it did not exit in time; it is killed then
   */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "worker " + pid() + " did not exit within " + timeout + "; see " + log);
    }
    return process.exitValue();
  }

  private void signal(String name) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -"
                + name
                + " "
                + pid()
                + " failed: "
                + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + name, e);
    }
  }

  /** Kills the process if it still runs (a paused one too). */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
