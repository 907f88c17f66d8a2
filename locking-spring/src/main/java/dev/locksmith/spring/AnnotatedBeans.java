package dev.locksmith.spring;

import dev.locksmith.core.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/** Finds the bean classes that carry {@code @DistributedLock} methods, without creating beans. */
final class AnnotatedBeans {
  private static final Logger LOG = LoggerFactory.getLogger(AnnotatedBeans.class);

  private AnnotatedBeans() {}

  /** The user class behind a bean (not its proxy), or {@code null} when it cannot be told. */
  static @Nullable Class<?> targetClass(ConfigurableListableBeanFactory factory, String name) {
    Class<?> type = null;
    if (factory.containsBeanDefinition(name)) {
      type = AutoProxyUtils.determineTargetClass(factory, name);
    }
    if (type == null) {
      type = factory.getType(name, false);
    }
    return type == null ? null : ClassUtils.getUserClass(type);
  }

  /**
   * How many methods of a class and its superclasses carry {@code @DistributedLock}, or implement a
   * locked interface method for it with an inherited body.
   */
  static int annotatedMethods(Class<?> type) {
    try {
      return AnnotatedMethods.of(type).size() + AnnotatedMethods.inheritedBodies(type).size();
    } catch (LinkageError e) {
      LOG.debug("Cannot inspect the methods of {}: {}", type.getName(), e.toString());
      return 0;
    }
  }

  /** The first method of a class that {@link #annotatedMethods} counts; the class must have one. */
  static Method firstLocked(Class<?> type) {
    List<Method> annotated = AnnotatedMethods.of(type);
    return annotated.isEmpty()
        ? AnnotatedMethods.inheritedBodies(type).keySet().iterator().next()
        : annotated.get(0);
  }
}
