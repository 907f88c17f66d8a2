package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.processing.LockedMethodIndexer;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles sources with plain javac and the index processor, as a build without AspectJ would: the
 * classes are listed in their directory's index and not woven.
 */
final class Javac {
  private Javac() {}

  /**
   * Compiles the sources (binary class name to source text) into the directory and returns a class
   * loader for it whose parent is the test's loader.
   */
  static URLClassLoader compile(Path dir, Map<String, String> sources) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Files.createDirectories(dir);
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
      List<JavaFileObject> units =
          sources.entrySet().stream()
              .map(source -> (JavaFileObject) new Source(source.getKey(), source.getValue()))
              .toList();
      JavaCompiler.CompilationTask task =
          javac.getTask(
              null,
              files,
              diagnostics,
              List.of(
                  "-d",
                  dir.toString(),
                  "-classpath",
                  System.getProperty("java.class.path"),
                  "-parameters",
                  "-g"),
              null,
              units);
      task.setProcessors(List.of(new LockedMethodIndexer()));
      assertThat(task.call()).as("javac: %s", diagnostics.getDiagnostics()).isTrue();
    }
    assertThat(dir.resolve(LockedMethodIndexer.INDEX)).isRegularFile();
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, Javac.class.getClassLoader());
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(String className, String text) {
      super(URI.create("string:///" + className.replace('.', '/') + ".java"), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
