package dev.locksmith.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How to start a {@link ChildJvm}; get one from {@link ChildJvm#builder(Class)}. {@link
 * #output(Path)} is required.
 */
public final class ChildJvmBuilder {
  private final String mainClass;
  private Path javaBinary = Path.of(System.getProperty("java.home"), "bin", "java");
  private String classPath = System.getProperty("java.class.path");
  private final List<String> jvmOptions = new ArrayList<>();
  private final Map<String, String> systemProperties = new LinkedHashMap<>();
  private final List<String> args = new ArrayList<>();
  private final Map<String, String> environment = new LinkedHashMap<>();
  private @Nullable Path output;
  private @Nullable Path errorOutput;
  private boolean pipeStdin;
  private boolean pipeStdout;
  private boolean append;

  ChildJvmBuilder(String mainClass) {
    this.mainClass = mainClass;
  }

  /**
   * The {@code java} executable; default: the one running this JVM.
   *
   * @param javaBinary the {@code java} executable; default: the one running this JVM
   * @return this builder
   */
  public ChildJvmBuilder javaBinary(Path javaBinary) {
    this.javaBinary = javaBinary;
    return this;
  }

  /**
   * The class path; default: this JVM's {@code java.class.path}.
   *
   * @param classPath the class path; default: this JVM's {@code java.class.path}
   * @return this builder
   */
  public ChildJvmBuilder classPath(String classPath) {
    this.classPath = classPath;
    return this;
  }

  /**
   * Adds JVM options such as {@code -Xmx96m} or {@code -javaagent:...}, in order.
   *
   * @param options JVM options, in order
   * @return this builder
   */
  public ChildJvmBuilder jvmOptions(String... options) {
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
  public ChildJvmBuilder systemProperty(String name, String value) {
    systemProperties.put(name, value);
    return this;
  }

  /**
   * Adds arguments for the main class, in order.
   *
   * @param arguments arguments for the main class, in order
   * @return this builder
   */
  public ChildJvmBuilder args(String... arguments) {
    args.addAll(List.of(arguments));
    return this;
  }

  /**
   * Adds arguments for the main class, in order.
   *
   * @param arguments arguments for the main class, in order
   * @return this builder
   */
  public ChildJvmBuilder args(List<String> arguments) {
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
  public ChildJvmBuilder output(Path file) {
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
  public ChildJvmBuilder errorOutput(Path file) {
    this.errorOutput = file;
    return this;
  }

  /**
   * Sets a variable of the child's environment, which is otherwise this JVM's.
   *
   * @param name the variable's name
   * @param value its value
   * @return this builder
   */
  public ChildJvmBuilder environment(String name, String value) {
    environment.put(name, value);
    return this;
  }

  /**
   * Makes standard input a pipe for {@link ChildJvm#send(String)}; default: empty input.
   *
   * @return this builder
   */
  public ChildJvmBuilder pipeStdin() {
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
  public ChildJvmBuilder pipeStdout() {
    this.pipeStdout = true;
    return this;
  }

  /**
   * Appends to the output files instead of replacing them, for several children in turn writing one
   * log.
   *
   * @return this builder
   */
  public ChildJvmBuilder appendOutput() {
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
      builder.environment().putAll(environment);
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
