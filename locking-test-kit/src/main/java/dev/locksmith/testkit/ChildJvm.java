package dev.locksmith.testkit;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

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

  private ChildJvm(Process process, Path log, String description) {
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
  public static Builder builder(Class<?> mainClass) {
    return new Builder(mainClass.getName());
  }

  /**
   * A builder for a child running the class named {@code mainClass}.
   *
   * @param mainClass the binary name of the class whose main method runs
   * @return a builder for a child running the class named {@code mainClass}
   */
  public static Builder builder(String mainClass) {
    return new Builder(mainClass);
  }

  /** How to start a child JVM; {@link #output(Path)} is required. */
  public static final class Builder {
    private final String mainClass;
    private Path javaBinary = Path.of(System.getProperty("java.home"), "bin", "java");
    private String classPath = System.getProperty("java.class.path");
    private final List<String> jvmOptions = new ArrayList<>();
    private final Map<String, String> systemProperties = new LinkedHashMap<>();
    private final List<String> args = new ArrayList<>();
    private @Nullable Path output;
    private @Nullable Path errorOutput;
    private boolean pipeStdin;
    private boolean pipeStdout;
    private boolean append;

    private Builder(String mainClass) {
      this.mainClass = mainClass;
    }

    /**
     * The {@code java} executable; default: the one running this JVM.
     *
     * @param javaBinary the {@code java} executable; default: the one running this JVM
     * @return this builder
     */
    public Builder javaBinary(Path javaBinary) {
      this.javaBinary = javaBinary;
      return this;
    }

    /**
     * The class path; default: this JVM's {@code java.class.path}.
     *
     * @param classPath the class path; default: this JVM's {@code java.class.path}
     * @return this builder
     */
    public Builder classPath(String classPath) {
      this.classPath = classPath;
      return this;
    }

    /**
     * Adds JVM options such as {@code -Xmx96m} or {@code -javaagent:...}, in order.
     *
     * @param options JVM options, in order
     * @return this builder
     */
    public Builder jvmOptions(String... options) {
      jvmOptions.addAll(List.of(options));
      return this;
    }

    /**
     * Adds {@code -Dname=value}, after the JVM options.
     *
     * @param name the property's name
     * @param value its value
     * @return this builder
     */
    public Builder systemProperty(String name, String value) {
      systemProperties.put(name, value);
      return this;
    }

    /**
     * Adds arguments for the main class, in order.
     *
     * @param arguments arguments for the main class, in order
     * @return this builder
     */
    public Builder args(String... arguments) {
      args.addAll(List.of(arguments));
      return this;
    }

    /**
     * Adds arguments for the main class, in order.
     *
     * @param arguments arguments for the main class, in order
     * @return this builder
     */
    public Builder args(List<String> arguments) {
      args.addAll(arguments);
      return this;
    }

    /**
     * The file the child's standard output and standard error go to; its directory is created.
     *
     * @param file the file the child's standard output and standard error go to; its directory is
     *     created
     * @return this builder
     */
    public Builder output(Path file) {
      this.output = file;
      return this;
    }

    /**
     * The file the child's standard error goes to, apart from its standard output; default: merged
     * into the {@link #output(Path)} file. Its directory is created.
     *
     * @param file the file the child's standard error goes to, apart from its standard output;
     *     default: merged into the {@link #output(Path)} file
     * @return this builder
     */
    public Builder errorOutput(Path file) {
      this.errorOutput = file;
      return this;
    }

    /**
     * Makes standard input a pipe for {@link ChildJvm#send(String)}; default: empty input.
     *
     * @return this builder
     */
    public Builder pipeStdin() {
      this.pipeStdin = true;
      return this;
    }

    /**
     * Makes standard output a pipe the caller reads from {@link ChildJvm#process()}'s input stream,
     * for a child that answers on it; the {@link #output(Path)} file then gets standard error only
     * (unless {@link #errorOutput(Path)} names another file). Default: standard output goes to the
     * output file.
     *
     * @return this builder
     */
    public Builder pipeStdout() {
      this.pipeStdout = true;
      return this;
    }

    /**
     * Appends to the output files instead of replacing them, for several children in turn writing
     * one log.
     *
     * @return this builder
     */
    public Builder appendOutput() {
      this.append = true;
      return this;
    }

    /**
     * The command line {@link #start()} runs.
     *
     * @return the command line {@link #start()} runs
     */
    public List<String> command() {
      List<String> command = new ArrayList<>();
      command.add(javaBinary.toString());
      command.addAll(jvmOptions);
      systemProperties.forEach((name, value) -> command.add("-D" + name + "=" + value));
      command.add("-cp");
      command.add(classPath);
      command.add(mainClass);
      command.addAll(args);
      return command;
    }

    /**
     * Starts the child.
     *
     * @return the started child
     * @throws IllegalStateException when no output file was given
     * @throws UncheckedIOException when the process cannot be started
     */
    public ChildJvm start() {
      Path log = output;
      if (log == null) {
        throw new IllegalStateException(
            "no output file for the child JVM running " + mainClass + ": call output(Path)");
      }
      try {
        createParent(log);
        ProcessBuilder builder = new ProcessBuilder(command());
        Path errors = errorOutput;
        if (errors != null) {
          createParent(errors);
          builder.redirectError(to(errors));
        }
        if (pipeStdout) {
          if (errors == null) {
            builder.redirectError(to(log));
          }
        } else {
          builder.redirectOutput(to(log));
          builder.redirectErrorStream(errors == null);
        }
        if (!pipeStdin) {
          builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        Process process = builder.start();
        return new ChildJvm(
            process, log, mainClass + " (pid " + process.pid() + ", log " + log + ")");
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start a child JVM running " + mainClass + " with " + javaBinary, e);
      }
    }

    private ProcessBuilder.Redirect to(Path file) {
      return append
          ? ProcessBuilder.Redirect.appendTo(file.toFile())
          : ProcessBuilder.Redirect.to(file.toFile());
    }

    private static void createParent(Path file) throws IOException {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    }
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
   * @throws IllegalStateException when the child was started without {@link Builder#pipeStdin()}
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
