package dev.locksmith.micronaut;

import dev.locksmith.core.internal.AnnotatedMethods;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.ExecutableMethod;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What the Micronaut side knows of each annotated method before the engine sees it: the parameter
 * names from compile-time metadata, so that keys may say {@code #paramName} without {@code
 * -parameters}. Everything else about the method, its return type included, the engine checks.
 */
@Singleton
final class LockedMethods {
  private final ConcurrentHashMap<Method, String[]> names = new ConcurrentHashMap<>();

  /**
   * Records an executable method's parameter names; the engine checks everything else when the
   * method is validated.
   *
   * @return the reflective method the engine keys its configuration on
   */
  Method register(ExecutableMethod<?, ?> executable) {
    Method method = executable.getTargetMethod();
    names.computeIfAbsent(
        method,
        m ->
            Arrays.stream(executable.getArguments()).map(Argument::getName).toArray(String[]::new));
    return method;
  }

  /**
   * The {@code @DistributedLock} methods of an application bean class and its superclasses, as core
   * finds them ({@link AnnotatedMethods#of}), leaving out Micronaut's generated {@code
   * $Intercepted} subclasses (their overrides are the interception itself). Empty for the
   * framework's own beans, which carry no {@code @DistributedLock}, and for a class whose methods
   * name an absent optional class, which is no application bean.
   */
  static List<Method> annotatedMethods(Class<?> beanType) {
    if (beanType.getName().startsWith("io.micronaut.")) {
      return List.of();
    }
    try {
      return AnnotatedMethods.of(beanType).stream()
          .filter(method -> !method.getDeclaringClass().getName().contains("$Intercepted"))
          .toList();
    } catch (LinkageError e) {
      return List.of();
    }
  }

  /**
   * The methods an application bean class inherits from a class that does not implement a locked
   * interface method they implement for it, each with that interface method ({@link
   * AnnotatedMethods#inheritedBodies}): Micronaut intercepts none of them. Empty where {@link
   * #annotatedMethods} is.
   */
  static Map<Method, Method> inheritedBodies(Class<?> beanType) {
    if (beanType.getName().startsWith("io.micronaut.")) {
      return Map.of();
    }
    try {
      return AnnotatedMethods.inheritedBodies(beanType);
    } catch (LinkageError e) {
      return Map.of();
    }
  }

  /** The recorded names, or {@code null} to let the engine fall back to reflection. */
  String @Nullable [] parameterNames(Method method) {
    String[] recorded = names.get(method);
    return recorded == null ? null : recorded.clone();
  }
}
