package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;

/**
 * What a proxy can intercept, the one rule that Spring AOP and Micronaut AOP check the annotated
 * methods of their beans against: a proxy is a subclass (or an interface implementation) that
 * overrides the methods it advises, so a method it cannot override runs without its lock. What else
 * a framework needs (Micronaut's compile-time metadata, Spring's self-invocation) stays in its
 * integration.
 */
public final class Proxies {
  /** How messages say which methods a proxy cannot intercept. */
  public static final String NOT_INTERCEPTABLE = "private, static or final";

  private Proxies() {}

  /**
   * Whether a proxy can intercept calls of the method: it is not private, static or final (see
   * {@link #NOT_INTERCEPTABLE}).
   *
   * @param method the method
   * @return whether a proxy can intercept it
   */
  public static boolean canIntercept(Method method) {
    int modifiers = method.getModifiers();
    return !Modifier.isPrivate(modifiers)
        && !Modifier.isStatic(modifiers)
        && !Modifier.isFinal(modifiers);
  }

  /**
   * The {@code @DistributedLock} methods of a class and its superclasses ({@link
   * AnnotatedMethods#of}) that no proxy can intercept, in the order of that walk.
   *
   * @param type the class
   * @return those methods
   * @throws LinkageError when a method of the class names a class that cannot be loaded
   */
  public static List<Method> notInterceptable(Class<?> type) {
    return AnnotatedMethods.of(type).stream().filter(m -> !canIntercept(m)).toList();
  }
}
