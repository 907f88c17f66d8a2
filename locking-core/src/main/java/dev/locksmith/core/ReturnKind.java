package dev.locksmith.core;

import java.lang.reflect.Method;
import java.util.Optional;
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
  /** A reactive-streams {@code Publisher} (Mono, Flux...): held only through {@code prepare}. */
  PUBLISHER,
  /** A plain {@code Future}, which cannot be held until it completes. */
  FUTURE;

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
    if (isPublisher(type)) {
      return PUBLISHER;
    }
    return PLAIN;
  }

  /** Whether the type implements org.reactivestreams.Publisher, without depending on it. */
  private static boolean isPublisher(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals("org.reactivestreams.Publisher")) {
        return true;
      }
      for (Class<?> i : c.getInterfaces()) {
        if (isPublisher(i)) {
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
