package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What a proxy can intercept, the one rule that Spring AOP and Micronaut AOP check the annotated
 * methods of their beans against: a proxy is a subclass (or an interface implementation) that
 * overrides the methods it advises, so a method it cannot override runs without its lock. What else
 * a framework needs (Micronaut's compile-time metadata, Spring's self-invocation) stays in its
 * integration.
 */
public final class Proxies {
  /** How messages say which methods a proxy cannot intercept. */
  public static final String NOT_INTERCEPTABLE =
      "private, static or final, or package-private in a superclass of another package";

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
   * Whether a proxy of {@code type} (a subclass in its package) can intercept calls of the method:
   * as {@link #canIntercept(Method)}, and not package-private in a superclass of another package,
   * which the proxy cannot override (callers in that package reach the superclass's body).
   *
   * @param type the proxied class
   * @param method one of its methods, perhaps inherited
   * @return whether a proxy can intercept it
   */
  public static boolean canIntercept(Class<?> type, Method method) {
    return whyNot(type, method) == null;
  }

  /**
   * Why a proxy of {@code type} cannot intercept the method, such as {@code final}; {@code null}
   * when it can.
   *
   * @param type the proxied class
   * @param method one of its methods, perhaps inherited
   * @return the reason, or {@code null}
   */
  public static @Nullable String whyNot(Class<?> type, Method method) {
    int modifiers = method.getModifiers();
    if (Modifier.isPrivate(modifiers)) {
      return "private";
    }
    if (Modifier.isStatic(modifiers)) {
      return "static";
    }
    if (Modifier.isFinal(modifiers)) {
      return "final";
    }
    Class<?> declaring = method.getDeclaringClass();
    boolean packagePrivate = !Modifier.isPublic(modifiers) && !Modifier.isProtected(modifiers);
    if (packagePrivate && !declaring.getPackageName().equals(type.getPackageName())) {
      return "package-private in "
          + declaring.getName()
          + ", of another package than "
          + type.getName();
    }
    return null;
  }

  /**
   * The {@code @DistributedLock} methods of a class and its superclasses ({@link
   * AnnotatedMethods#of}), then the inherited methods that implement a locked interface method for
   * it ({@link AnnotatedMethods#inheritedBodies}), that no proxy of it can intercept, in the order
   * of those walks.
   *
   * @param type the class
   * @return those methods
   * @throws LinkageError when a method of the class names a class that cannot be loaded
   */
  public static List<Method> notInterceptable(Class<?> type) {
    return Stream.concat(
            AnnotatedMethods.of(type).stream(),
            AnnotatedMethods.inheritedBodies(type).keySet().stream())
        .filter(m -> !canIntercept(type, m))
        .toList();
  }
}
