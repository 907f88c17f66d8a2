package dev.locksmith.spring.aot;

import dev.locksmith.spring.LockingInfrastructure;
import java.io.Closeable;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.PropertyValue;
import org.springframework.beans.factory.Aware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

/**
 * Tells, ahead of time, whether the lock advisor's auto-proxy creator will proxy a bean through its
 * interfaces (a JDK proxy, which a native image must know at build time) and with which ones,
 * following the rules of Spring's auto-proxy creator: a class proxy when the bean asks for one or
 * the application proxies classes ({@code proxyTargetClass}, Spring Boot's default), the interfaces
 * a bean exposes through {@code @Proxyable}, else every interface of the class and its superclasses
 * when one of them is worth proxying.
 */
final class ProxyInterfaces {
  private static final String PROXY_TARGET_CLASS = "proxyTargetClass";

  private ProxyInterfaces() {}

  /**
   * The interfaces of the bean's JDK proxy; empty for a class proxy or when there is no advisor.
   */
  static List<Class<?>> of(RegisteredBean bean, Class<?> type) {
    ConfigurableListableBeanFactory factory = bean.getBeanFactory();
    if (!factory.containsBeanDefinition(LockingInfrastructure.ADVISOR_BEAN_NAME)
        || type.isInterface()
        || AutoProxyUtils.shouldProxyTargetClass(factory, bean.getBeanName())) {
      return List.of();
    }
    Object exposed =
        bean.getMergedBeanDefinition().getAttribute(AutoProxyUtils.EXPOSED_INTERFACES_ATTRIBUTE);
    if (exposed instanceof Class<?>[] listed && listed.length > 0) {
      return List.of(listed);
    }
    if (exposed == null && proxiesClasses(factory)) {
      return List.of();
    }
    List<Class<?>> interfaces =
        List.of(ClassUtils.getAllInterfacesForClass(type, factory.getBeanClassLoader()));
    return interfaces.stream().anyMatch(ProxyInterfaces::isReasonable) ? interfaces : List.of();
  }

  /** Whether the creator, or the proxy defaults all creators share, asks for class proxies. */
  private static boolean proxiesClasses(ConfigurableListableBeanFactory factory) {
    return asksForClassProxies(factory, AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
        || asksForClassProxies(factory, AutoProxyUtils.DEFAULT_PROXY_CONFIG_BEAN_NAME);
  }

  private static boolean asksForClassProxies(ConfigurableListableBeanFactory factory, String name) {
    if (!factory.containsBeanDefinition(name)) {
      return false;
    }
    BeanDefinition definition = factory.getBeanDefinition(name);
    @Nullable PropertyValue value =
        definition.getPropertyValues().getPropertyValue(PROXY_TARGET_CLASS);
    return value != null && Boolean.parseBoolean(String.valueOf(value.getValue()));
  }

  private static boolean isReasonable(Class<?> type) {
    String name = type.getName();
    boolean callback =
        InitializingBean.class == type
            || DisposableBean.class == type
            || Closeable.class == type
            || AutoCloseable.class == type
            || Aware.class.isAssignableFrom(type);
    boolean internal =
        name.equals("groovy.lang.GroovyObject")
            || name.endsWith(".cglib.proxy.Factory")
            || name.endsWith(".bytebuddy.MockAccess");
    return !callback && !internal && type.getMethods().length > 0;
  }
}
