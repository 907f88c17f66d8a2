package dev.locksmith.annotation.processing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** javac with the processor writes the index of annotated methods, and keeps it across rebuilds. */
class LockedMethodIndexerTest {
  @TempDir Path out;

  @Test
  void listsAnnotatedMethodsAndTheMethodsThatInheritTheAnnotation() throws Exception {
    compile(
        Map.of(
            "fixture.Jobs",
            """
            package fixture;

            import dev.locksmith.annotation.DistributedLock;
            import java.lang.annotation.Retention;
            import java.lang.annotation.RetentionPolicy;

            public class Jobs {
              @Retention(RetentionPolicy.RUNTIME)
              @DistributedLock(name = "nightly")
              public @interface Nightly {}

              @DistributedLock
              public void plain() {}

              @Nightly
              static int[] meta(String[] tenants, long at, java.util.List<String> names) {
                return null;
              }

              public void notLocked() {}

              public static class Inner {
                @DistributedLock
                <T extends Comparable<T>> T generic(T value, Object... more) {
                  return value;
                }
              }
            }
            """,
            "fixture.Store",
            """
            package fixture;

            import dev.locksmith.annotation.DistributedLock;

            public interface Store<T> {
              @DistributedLock
              void put(T value);

              void get();
            }
            """,
            "fixture.Strings",
            """
            package fixture;

            public class Strings implements Store<String> {
              @Override
              public void put(String value) {}

              @Override
              public void get() {}
            }
            """,
            "fixture.Sub",
            """
            package fixture;

            public class Sub extends Jobs {
              @Override
              public void plain() {}

              @Override
              public void notLocked() {}
            }
            """));

    assertThat(indexLines())
        .containsExactly(
            "fixture.Jobs meta ([Ljava/lang/String;JLjava/util/List;)[I",
            "fixture.Jobs plain ()V",
            "fixture.Jobs$Inner generic (Ljava/lang/Comparable;[Ljava/lang/Object;)"
                + "Ljava/lang/Comparable;",
            "fixture.Store put (Ljava/lang/Object;)V",
            "fixture.Strings put (Ljava/lang/String;)V",
            "fixture.Sub plain ()V");
  }

  @Test
  void listsAClassWhoseLockedInterfaceMethodHasItsBodyInASuperclass() throws Exception {
    // Impl's own members carry nothing: the body of Api.handle is PlainBase's, which does not
    // implement Api. The weaving check must still be told to look at Impl.
    compile(
        Map.of(
            "fixture.Api",
            """
            package fixture;

            public interface Api<T> {
              @dev.locksmith.annotation.DistributedLock
              void handle(T value);

              void other();
            }
            """,
            "fixture.PlainBase",
            """
            package fixture;

            public class PlainBase {
              public void handle(String value) {}

              public void other() {}

              public void handle(Integer value) {}
            }
            """,
            "fixture.Impl",
            """
            package fixture;

            public class Impl extends PlainBase implements Api<String> {}
            """,
            "fixture.AbstractImpl",
            """
            package fixture;

            public abstract class AbstractImpl implements Api<Integer> {
              public void other() {}
            }
            """));

    assertThat(indexLines())
        .containsExactly(
            "fixture.Api handle (Ljava/lang/Object;)V",
            "fixture.Impl handle (Ljava/lang/String;)V");
  }

  @Test
  void anAnnotationStandingForTheLockButNotKeptAtRunTimeIsACompileError() throws Exception {
    // The engine and the aspect see only annotations kept at run time: the method would run
    // unlocked, though the index lists it.
    List<String> errors =
        compileErrors(
            Map.of(
                "fixture.Jobs",
                """
                package fixture;

                import dev.locksmith.annotation.DistributedLock;
                import java.lang.annotation.Retention;
                import java.lang.annotation.RetentionPolicy;

                public class Jobs {
                  @DistributedLock(name = "nightly")
                  public @interface Nightly {}

                  @Retention(RetentionPolicy.SOURCE)
                  @Nightly
                  public @interface Hourly {}

                  @Nightly
                  public void nightly() {}

                  @Hourly
                  public void hourly() {}
                }
                """));
    assertThat(errors)
        .containsExactly(
            "@fixture.Jobs.Nightly stands for @DistributedLock but is not"
                + " @Retention(RetentionPolicy.RUNTIME), so the lock is not seen at run time and"
                + " nightly() would run unlocked: add @Retention(RetentionPolicy.RUNTIME) to"
                + " fixture.Jobs.Nightly",
            "@fixture.Jobs.Hourly stands for @DistributedLock but is not"
                + " @Retention(RetentionPolicy.RUNTIME), so the lock is not seen at run time and"
                + " hourly() would run unlocked: add @Retention(RetentionPolicy.RUNTIME) to"
                + " fixture.Jobs.Hourly");
  }

  @Test
  void aPartialRebuildKeepsTheLinesOfClassesItDidNotCompile() throws Exception {
    compile(Map.of("fixture.A", locked("A"), "fixture.B", locked("B")));
    assertThat(indexLines()).containsExactly("fixture.A run ()V", "fixture.B run ()V");

    compile(Map.of("fixture.B", plain("B")));
    assertThat(indexLines())
        .as("B recompiled without the annotation")
        .containsExactly("fixture.A run ()V");

    compile(Map.of("fixture.B", locked("B")));
    assertThat(indexLines()).containsExactly("fixture.A run ()V", "fixture.B run ()V");

    Files.delete(out.resolve("fixture/A.class"));
    compile(Map.of("fixture.B", locked("B")));
    assertThat(indexLines()).as("A's class file is gone").containsExactly("fixture.B run ()V");
  }

  @Test
  void writesNoIndexWhenNothingIsAnnotated() throws Exception {
    compile(Map.of("fixture.A", plain("A")));

    assertThat(out.resolve(LockedMethodIndexer.INDEX)).doesNotExist();
    assertThat(out.resolve("fixture/A.class")).isRegularFile();
  }

  private static String locked(String name) {
    return """
        package fixture;

        public class %s {
          @dev.locksmith.annotation.DistributedLock
          public void run() {}
        }
        """
        .formatted(name);
  }

  private static String plain(String name) {
    return """
        package fixture;

        public class %s {
          public void run() {}
        }
        """
        .formatted(name);
  }

  private List<String> indexLines() throws IOException {
    return Files.readAllLines(out.resolve(LockedMethodIndexer.INDEX), StandardCharsets.UTF_8)
        .stream()
        .filter(line -> !line.startsWith("#"))
        .toList();
  }

  /** javac with the processor, the output directory on the class path as in a partial rebuild. */
  private void compile(Map<String, String> sources) throws IOException {
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    assertThat(javac(sources, diagnostics)).as("javac: %s", diagnostics.getDiagnostics()).isTrue();
  }

  /** The errors of a compilation that fails. */
  private List<String> compileErrors(Map<String, String> sources) throws IOException {
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    assertThat(javac(sources, diagnostics)).as("javac fails").isFalse();
    return diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
        .map(d -> d.getMessage(java.util.Locale.ROOT))
        .toList();
  }

  private boolean javac(
      Map<String, String> sources, DiagnosticCollector<JavaFileObject> diagnostics)
      throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
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
                  out.toString(),
                  "-classpath",
                  System.getProperty("java.class.path") + File.pathSeparator + out),
              null,
              units);
      task.setProcessors(List.of(new LockedMethodIndexer()));
      return task.call();
    }
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
