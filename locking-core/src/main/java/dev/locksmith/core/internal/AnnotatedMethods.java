package dev.locksmith.core.internal;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which methods carry {@code @DistributedLock}, the one rule the engine and every integration
 * (Spring, Micronaut, AspectJ) decide it by: on the method itself, directly or through
 * meta-annotations at any depth, or inherited from the nearest method it overrides or implements
 * (superclasses first, then interfaces).
 */
public final class AnnotatedMethods {
  private AnnotatedMethods() {}

  /**
   * The methods declared in a class and its superclasses (up to, not including, {@code Object})
   * that carry {@code @DistributedLock} or inherit it ({@link #isAnnotated}), then the annotated
   * default methods of its interfaces that none of them overrides (a proxy intercepts those too),
   * synthetic and bridge methods left out: the one walk every integration makes to find what to
   * validate or intercept.
   *
   * @param type the class
   * @return those methods
   * @throws LinkageError when a method of the class names a class that cannot be loaded
   */
  public static List<Method> of(Class<?> type) {
    List<Method> methods = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method method : c.getDeclaredMethods()) {
        if (!method.isSynthetic() && !method.isBridge() && isAnnotated(method)) {
          methods.add(method);
        }
      }
    }
    // The class's public methods resolve each signature to its override where there is one.
    for (Method method : type.getMethods()) {
      if (method.isDefault()
          && !method.isSynthetic()
          && !method.isBridge()
          && isAnnotated(method)
          && !methods.contains(method)) {
        methods.add(method);
      }
    }
    return methods;
  }

  /**
   * The locked interface method that {@code method}, which {@code type} inherits from a class that
   * does not implement that interface, implements for {@code type}; such a method neither carries
   * nor inherits the annotation itself, so an integration that matches annotated methods misses it.
   *
   * @param type the class that implements the interface
   * @param method a method of {@code type}, declared by a superclass
   * @return the locked interface method, if any
   */
  public static Optional<Method> lockedInterfaceMethodImplementedBy(Class<?> type, Method method) {
    for (Class<?> api : interfacesOf(type)) {
      if (api.isAssignableFrom(method.getDeclaringClass())) {
        continue;
      }
      for (Method candidate : api.getDeclaredMethods()) {
        if (candidate.getName().equals(method.getName())
            && !candidate.isSynthetic()
            && !candidate.isBridge()
            && !Modifier.isStatic(candidate.getModifiers())
            && GenericParameters.overrides(type, method, candidate)
            && findOn(candidate) != null) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The public methods {@code type} inherits from a superclass that does not implement a locked
   * interface method they implement for {@code type} ({@link #lockedInterfaceMethodImplementedBy}),
   * each mapped to that interface method, whose annotation governs calls made through the
   * interface. No method of {@code type}'s own carries or inherits the annotation there, so {@link
   * #of} leaves them out: an integration either intercepts them under the interface method's lock
   * or refuses them, never lets them run unlocked.
   *
   * @param type the class
   * @return each such method and the locked interface method it implements, in the order of {@link
   *     Class#getMethods()}
   * @throws LinkageError when a method of the class names a class that cannot be loaded
   */
  public static Map<Method, Method> inheritedBodies(Class<?> type) {
    if (type.isInterface()) {
      return Map.of();
    }
    Map<Method, Method> bodies = new LinkedHashMap<>();
    for (Method method : type.getMethods()) {
      Class<?> declaring = method.getDeclaringClass();
      if (declaring.isInterface()
          || declaring == Object.class
          || method.isSynthetic()
          || method.isBridge()
          || Modifier.isStatic(method.getModifiers())
          || Modifier.isAbstract(method.getModifiers())
          || isAnnotated(method)) {
        continue;
      }
      lockedInterfaceMethodImplementedBy(type, method)
          .ifPresent(locked -> bodies.put(method, locked));
    }
    return bodies;
  }

  private static Set<Class<?>> interfacesOf(Class<?> type) {
    Set<Class<?>> found = new LinkedHashSet<>();
    Deque<Class<?>> next = new ArrayDeque<>();
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      next.addAll(List.of(c.getInterfaces()));
    }
    while (!next.isEmpty()) {
      Class<?> api = next.poll();
      if (found.add(api)) {
        next.addAll(List.of(api.getInterfaces()));
      }
    }
    return found;
  }

  /**
   * Whether a method carries {@code @DistributedLock}, directly, through a meta-annotation, or
   * inherited from a method it overrides or implements.
   *
   * @param method the method
   * @return whether it is annotated
   */
  public static boolean isAnnotated(Method method) {
    return find(method) != null;
  }

  /**
   * The annotation that governs a method, if any.
   *
   * @param method the method
   * @return the governing annotation, if any
   */
  public static Optional<DistributedLock> annotationOf(Method method) {
    return Optional.ofNullable(find(method));
  }

  /**
   * The method whose {@code @DistributedLock} governs {@code method}: the method itself when it
   * carries the annotation (directly or through meta-annotations), else the nearest method it
   * overrides or implements that does (superclasses first, then interfaces). Integrations use it to
   * tell an inherited annotation, which an AspectJ execution pointcut does not see, from the
   * method's own.
   *
   * @param method the method
   * @return that method, if any
   */
  public static Optional<Method> sourceOf(Method method) {
    return Optional.ofNullable(source(method));
  }

  /** The governing annotation, or {@code null}: {@link #annotationOf} without the wrapper. */
  public static @Nullable DistributedLock find(Method method) {
    Method source = source(method);
    return source == null ? null : findOn(source);
  }

  private static @Nullable Method source(Method method) {
    if (findOn(method) != null) {
      return method;
    }
    if (method.isSynthetic() || method.isBridge()) {
      return null;
    }
    return findInherited(method.getDeclaringClass(), method, new HashSet<>());
  }

  private static @Nullable Method findInherited(Class<?> type, Method method, Set<Class<?>> seen) {
    List<Class<?>> parents = new ArrayList<>(List.of(type.getInterfaces()));
    if (type.getSuperclass() != null && type.getSuperclass() != Object.class) {
      parents.add(0, type.getSuperclass());
    }
    for (Class<?> parent : parents) {
      if (!seen.add(parent)) {
        continue;
      }
      for (Method overridden : parent.getDeclaredMethods()) {
        if (overridden.getName().equals(method.getName())
            && !overridden.isSynthetic()
            && !overridden.isBridge()
            && !Modifier.isPrivate(overridden.getModifiers())
            && GenericParameters.overrides(method, overridden)
            && findOn(overridden) != null) {
          return overridden;
        }
      }
      Method found = findInherited(parent, method, seen);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * The method's own {@code @DistributedLock}, direct or through meta-annotations; refuses two that
   * differ (two composed annotations naming different locks, say), of which one would silently be
   * ignored.
   */
  private static @Nullable DistributedLock findOn(Method method) {
    DistributedLock found = method.getAnnotation(DistributedLock.class);
    String foundOn = "@DistributedLock";
    for (Annotation annotation : method.getAnnotations()) {
      if (annotation instanceof DistributedLock) {
        continue;
      }
      DistributedLock meta = findMeta(annotation.annotationType(), new HashSet<>());
      if (meta == null || meta.equals(found)) {
        continue;
      }
      String on = "@" + annotation.annotationType().getSimpleName();
      if (found != null) {
        throw new LockConfigurationException(
            "Method "
                + Signatures.of(method)
                + " has two different @DistributedLock, through "
                + foundOn
                + " and "
                + on
                + ", and only one lock applies to a call; keep one (one lock over several keys"
                + " takes a key expression giving a collection)");
      }
      found = meta;
      foundOn = on;
    }
    return found;
  }

  private static @Nullable DistributedLock findMeta(
      Class<? extends Annotation> type, Set<Class<?>> seen) {
    if (!seen.add(type) || type.getName().startsWith("java.lang.annotation.")) {
      return null;
    }
    DistributedLock direct = type.getAnnotation(DistributedLock.class);
    if (direct != null) {
      return direct;
    }
    for (Annotation annotation : type.getAnnotations()) {
      DistributedLock meta = findMeta(annotation.annotationType(), seen);
      if (meta != null) {
        return meta;
      }
    }
    return null;
  }
}
