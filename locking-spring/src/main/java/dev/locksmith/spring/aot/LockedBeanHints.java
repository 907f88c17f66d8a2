package dev.locksmith.spring.aot;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;

/**
 * The hints of one bean class with {@code @DistributedLock} methods:
 *
 * <ul>
 *   <li>the declared methods of the class, its superclasses and every interface it implements,
 *       which the engine lists ({@code getDeclaredMethods}) to find and validate annotated methods
 *       and the methods they override;
 *   <li>each annotated method for invocation (the proxy calls the target through reflection); a
 *       method registered for reflection keeps its parameters' names in a native image, which is
 *       what {@code #accountId} in a key reads ({@code Method.getParameters()}, from classes
 *       compiled with {@code -parameters}, as Spring Boot's build plugins do);
 *   <li>the annotations on those methods, for {@code @DistributedLock} used as a meta-annotation;
 *   <li>the JDK proxy of the bean's interfaces, when the bean is proxied through its interfaces.
 * </ul>
 */
final class LockedBeanHints {
  private LockedBeanHints() {}

  /**
   * Registers the hints of a bean class.
   *
   * @param type the bean's user class
   * @param annotated its methods that carry or inherit {@code @DistributedLock}
   * @param proxyInterfaces the interfaces of its JDK proxy, empty when it is not proxied that way
   */
  static void register(
      RuntimeHints hints, Class<?> type, List<Method> annotated, List<Class<?>> proxyInterfaces) {
    // Spring 7 deprecates the introspection categories for removal (any type hint includes
    // introspection); LockedBeanAotProcessorTest still asks for this one, so it stays until both
    // go.
    @SuppressWarnings("removal")
    MemberCategory introspect = MemberCategory.INTROSPECT_DECLARED_METHODS;
    for (Class<?> searched : searchedTypes(type)) {
      hints.reflection().registerType(searched, introspect);
    }
    for (Method method : annotated) {
      hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
      for (Annotation annotation : method.getAnnotations()) {
        Class<? extends Annotation> annotationType = annotation.annotationType();
        if (!annotationType.getName().startsWith("java.")) {
          hints.reflection().registerType(annotationType, MemberCategory.INVOKE_PUBLIC_METHODS);
        }
      }
    }
    if (!proxyInterfaces.isEmpty()) {
      hints
          .proxies()
          .registerJdkProxy(
              AopProxyUtils.completeJdkProxyInterfaces(proxyInterfaces.toArray(Class<?>[]::new)));
    }
  }

  /** The class, its superclasses up to {@code Object} and all their interfaces, transitively. */
  static Set<Class<?>> searchedTypes(Class<?> type) {
    Set<Class<?>> types = new LinkedHashSet<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      addWithInterfaces(c, types);
    }
    return types;
  }

  private static void addWithInterfaces(Class<?> type, Set<Class<?>> into) {
    if (into.add(type)) {
      for (Class<?> parent : type.getInterfaces()) {
        addWithInterfaces(parent, into);
      }
    }
  }
}
