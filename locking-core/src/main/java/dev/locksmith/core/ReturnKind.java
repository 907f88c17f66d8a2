package dev.locksmith.core;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/** How a locked method returns, which decides what SKIP returns and when the lock is released. */
enum ReturnKind {
  /** A plain value or void: released when the method returns. */
  PLAIN,
  /** {@code Optional}: SKIP returns {@code Optional.empty()}. */
  OPTIONAL,
  /** {@code CompletionStage} or {@code CompletableFuture}: held until the stage completes. */
  STAGE,
  /** A primitive other than void: SKIP has nothing to return. */
  PRIMITIVE,
  /**
   * A lazy result, whose work runs when it is subscribed to, after the method returned: a
   * reactive-streams {@code Publisher} (Mono, Flux...), or one of another kind (a JDK {@code
   * Flow.Publisher}, an RxJava {@code Single}, a Kotlin {@code Flow}, a Mutiny {@code Uni}...).
   * Held only through {@code prepare}, by an integration that can hold it; a plain invoke refuses
   * it rather than run it unlocked.
   */
  PUBLISHER,
  /** A plain {@code Future}, which cannot be held until it completes. */
  FUTURE;

  /** Types whose work runs at subscription, by name: none of them is a dependency. */
  private static final Set<String> LAZY_TYPES =
      Set.of(
          "org.reactivestreams.Publisher",
          "java.util.concurrent.Flow$Publisher",
          "io.reactivex.rxjava3.core.Single",
          "io.reactivex.rxjava3.core.Maybe",
          "io.reactivex.rxjava3.core.Completable",
          "io.reactivex.rxjava3.core.Observable",
          "io.reactivex.Single",
          "io.reactivex.Maybe",
          "io.reactivex.Completable",
          "io.reactivex.Observable",
          "kotlinx.coroutines.flow.Flow",
          "io.smallrye.mutiny.Uni",
          "io.smallrye.mutiny.Multi");

  static ReturnKind of(Method method) {
    Class<?> type = method.getReturnType();
    if (type.isPrimitive() && type != void.class) {
      return PRIMITIVE;
    }
    if (type == Optional.class) {
      return OPTIONAL;
    }
    if (CompletionStage.class.isAssignableFrom(type)) {
      return STAGE;
    }
    if (Future.class.isAssignableFrom(type)) {
      return FUTURE;
    }
    if (isLazy(type)) {
      return PUBLISHER;
    }
    return PLAIN;
  }

  /** Whether the type is or extends one of {@link #LAZY_TYPES}, without depending on them. */
  private static boolean isLazy(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (LAZY_TYPES.contains(c.getName())) {
        return true;
      }
      for (Class<?> i : c.getInterfaces()) {
        if (isLazy(i)) {
          return true;
        }
      }
    }
    return false;
  }

  /** What a skipped call returns. */
  @Nullable Object skipped() {
    return switch (this) {
      case OPTIONAL -> Optional.empty();
      case STAGE -> CompletableFuture.completedFuture(null);
      default -> null;
    };
  }
}
