package dev.locksmith.core;

import static dev.locksmith.core.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.memory.MemoryLockProvider;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's key rules (binding parameters, array keys, null and empty values) through a test key
 * language; SpEL itself is tested in {@code locking-spel}.
 */
class KeyEvaluationTest {
  private final Locksmith locksmith =
      Locksmith.builder()
          .keyLanguage(ConcatKeys.LANGUAGE)
          .defaultProvider(MemoryLockProvider.isolated())
          .build();

  @AfterEach
  void close() {
    locksmith.close();
  }

  static class Accounts {
    @DistributedLock(key = "#accountId")
    String byName(String accountId, long cents) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "acct", key = "#p0 + '/' + #a1")
    String byIndex(String accountId, long cents) {
      return Locks.current().lockId();
    }

    @DistributedLock(key = "#id")
    String nullable(String id) {
      return "ran";
    }

    @DistributedLock(key = "#id")
    String optional(java.util.Optional<String> id) {
      return Locks.current().lockId();
    }

    @DistributedLock(key = "#id")
    String optionalLong(java.util.OptionalLong id) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "named-p0", key = "#p0")
    String parameterNamedLikeAnIndex(String accountId, String p0) {
      return Locks.current().lockId();
    }
  }

  static final class Opaque {}

  static class Batches {
    @DistributedLock(key = "#ids")
    List<String> byIds(long[] ids) {
      return Locks.current().leases().stream().map(Lease::lockId).toList();
    }

    @DistributedLock(key = "#names")
    List<String> byNames(String[] names) {
      return Locks.current().leases().stream().map(Lease::lockId).toList();
    }

    @DistributedLock(key = "#thing")
    String byOpaque(Opaque thing) {
      return Locks.current().key();
    }

    @DistributedLock(key = "#things")
    String byAll(java.util.Collection<?> things) {
      return "ran";
    }
  }

  /** A value whose text cannot be read now, as a lazily loaded entity's outside its session. */
  static final class Detached {
    @Override
    public String toString() {
      throw new IllegalStateException("could not initialize proxy - no Session");
    }
  }

  /** A collection that cannot be read now, as a lazily loaded one outside its session. */
  static final class DetachedList extends java.util.AbstractList<String> {
    @Override
    public String get(int index) {
      throw new IllegalStateException("failed to lazily initialize a collection");
    }

    @Override
    public int size() {
      throw new IllegalStateException("failed to lazily initialize a collection");
    }
  }

  @Test
  void aKeyValueWhoseTextCannotBeReadIsAKeyErrorNamingTheMethodAndExpression() {
    assertThatThrownBy(() -> call(locksmith, new Batches(), "byAll", List.of(new Detached())))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Batches.byAll")
        .hasMessageContaining("'#things'")
        .hasMessageContaining("could not initialize proxy")
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> call(locksmith, new Batches(), "byAll", new DetachedList()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Batches.byAll")
        .hasMessageContaining("'#things'")
        .hasMessageContaining("failed to lazily initialize a collection")
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void arraysLockEveryDistinctElementAndObjectsWithoutToStringAreRefused() throws Exception {
    assertThat(call(locksmith, new Batches(), "byIds", (Object) new long[] {3, 1, 3}))
        .isEqualTo(List.of("Batches.byIds:1", "Batches.byIds:3"));
    assertThat(call(locksmith, new Batches(), "byNames", (Object) new String[] {"b", "a"}))
        .isEqualTo(List.of("Batches.byNames:a", "Batches.byNames:b"));
    assertThat(call(locksmith, new Batches(), "byNames", (Object) new String[] {"a"}))
        .isEqualTo(List.of("Batches.byNames:a"));
    assertThatThrownBy(() -> call(locksmith, new Batches(), "byOpaque", new Opaque()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("has no toString() of its own");
  }

  @Test
  void parameterNameIsAppendedToTheDefaultName() throws Throwable {
    assertThat(call(locksmith, new Accounts(), "byName", "acct-7", 10L))
        .isEqualTo("Accounts.byName:acct-7");
  }

  @Test
  void indexedParametersAndExplicitName() throws Throwable {
    assertThat(call(locksmith, new Accounts(), "byIndex", "acct-7", 10L))
        .isEqualTo("acct:acct-7/10");
  }

  @Test
  void aParameterNamedLikeAnIndexIsThatParameter() throws Exception {
    // #p0 bound the first argument although a parameter is named p0: calls meant to exclude each
    // other on p0 locked on another argument.
    assertThat(call(locksmith, new Accounts(), "parameterNamedLikeAnIndex", "acct-1", "shared"))
        .isEqualTo("named-p0:shared");
  }

  @Test
  void nullOrEmptyKeyIsAnErrorNotASharedLock() {
    assertThatThrownBy(() -> call(locksmith, new Accounts(), "nullable", (Object) null))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Accounts.nullable(String): key expression '#id' evaluated to null");
    assertThatThrownBy(() -> call(locksmith, new Accounts(), "nullable", ""))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("evaluated to an empty string");
  }

  @Test
  void anOptionalKeyIsItsValueAndAnEmptyOneIsAnError() throws Exception {
    // An Optional's toString() was the key: every call with an empty one shared the lock
    // 'Optional.empty', and a present one locked 'Optional[acct-7]', not the id's lock.
    assertThat(call(locksmith, new Accounts(), "optional", java.util.Optional.of("acct-7")))
        .isEqualTo("Accounts.optional:acct-7");
    assertThat(call(locksmith, new Accounts(), "optionalLong", java.util.OptionalLong.of(7)))
        .isEqualTo("Accounts.optionalLong:7");
    assertThatThrownBy(
            () -> call(locksmith, new Accounts(), "optional", java.util.Optional.empty()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining(
            "Accounts.optional(Optional): key expression '#id' evaluated to an empty Optional");
    assertThatThrownBy(
            () -> call(locksmith, new Accounts(), "optionalLong", java.util.OptionalLong.empty()))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("evaluated to an empty OptionalLong");
  }

  @Retention(RetentionPolicy.RUNTIME)
  @Target(java.lang.annotation.ElementType.METHOD)
  @DistributedLock(name = "nightly", ttl = "5s")
  @interface NightlyJob {}

  static class Jobs {
    @NightlyJob
    String run() {
      return Locks.current().name() + " " + Locks.current().timeLeft().getSeconds();
    }
  }

  @Test
  void metaAnnotationStandsForDistributedLock() throws Throwable {
    assertThat(AnnotatedMethods.isAnnotated(Calls.method(Jobs.class, "run"))).isTrue();
    assertThat((String) call(locksmith, new Jobs(), "run")).matches("nightly [45]");
  }

  @Test
  void specIsBuiltOnceAndReused() {
    MethodSpecs specs =
        new MethodSpecs(
            new ConfiguredProviders(java.util.Map.of("", MemoryLockProvider.isolated())),
            s -> s,
            m -> null,
            ConcatKeys.LANGUAGE);
    var method = Calls.method(Accounts.class, "byName");
    assertThat(specs.get(method)).isSameAs(specs.get(method));
    assertThat(specs.get(method).key()).isNotNull();
  }

  @Test
  void classCompiledWithoutParametersGetsAClearError(@TempDir Path dir) throws Exception {
    Path source = dir.resolve("NoNames.java");
    Files.writeString(
        source,
        "public class NoNames {\n"
            + "  @dev.locksmith.annotation.DistributedLock(key = \"#accountId\")\n"
            + "  public void pay(String accountId) {}\n"
            + "  @dev.locksmith.annotation.DistributedLock(key = \"#p0\")\n"
            + "  public String indexed(String accountId) { return dev.locksmith.core.Locks.current().key(); }\n"
            + "}\n");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status =
        javac.run(
            null,
            null,
            null,
            List.of(
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    dir.toString(),
                    source.toString())
                .toArray(String[]::new));
    assertThat(status).isZero();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> type = loader.loadClass("NoNames");
      assertThatThrownBy(() -> locksmith.validate(type.getMethod("pay", String.class)))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("NoNames.pay(String), attribute key: '#accountId'")
          .hasMessageContaining("NoNames was compiled without -parameters")
          .hasMessageContaining("use #p0/#a0");
      Object target = type.getDeclaredConstructor().newInstance();
      assertThat(call(locksmith, target, "indexed", "a-1")).isEqualTo("a-1");
    }
  }
}
