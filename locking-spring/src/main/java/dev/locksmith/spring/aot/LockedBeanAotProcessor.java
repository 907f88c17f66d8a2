package dev.locksmith.spring.aot;

import dev.locksmith.core.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;

/**
 * Contributes, for every bean whose class has {@code @DistributedLock} methods (a locked interface
 * method's body inherited from a superclass included), the reflection and proxy hints of {@link
 * LockedBeanHints}. Registered for Spring AOT in {@code META-INF/spring/aot.factories}; beans
 * without annotated methods contribute nothing.
 */
public final class LockedBeanAotProcessor implements BeanRegistrationAotProcessor {

  /** Created by Spring AOT through {@code aot.factories}. */
  public LockedBeanAotProcessor() {}

  /** The bean's hints, or {@code null} when its class has no annotated method. */
  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
    Class<?> type = bean.getBeanClass();
    List<Method> annotated = new ArrayList<>();
    try {
      annotated.addAll(AnnotatedMethods.of(type));
      // A locked interface method whose body the class inherits from a class that does not
      // implement that interface: the body is what the proxy calls, the interface method governs.
      AnnotatedMethods.inheritedBodies(type)
          .forEach(
              (body, locked) -> {
                annotated.add(body);
                annotated.add(locked);
              });
    } catch (LinkageError e) {
      // A method names a class missing from the build's class path: the bean cannot be locked.
      return null;
    }
    if (annotated.isEmpty()) {
      return null;
    }
    List<Class<?>> proxyInterfaces = ProxyInterfaces.of(bean, type);
    return (generationContext, code) ->
        LockedBeanHints.register(
            generationContext.getRuntimeHints(), type, annotated, proxyInterfaces);
  }
}
