package dev.locksmith.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.ProxyProcessorSupport;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Which interfaces Spring's auto-proxy creator will give a bean's JDK proxy, decided as its {@code
 * AbstractAutoProxyCreator} and {@code DefaultAopProxyFactory} decide: a JDK proxy or a lambda is
 * proxied by its interfaces; a bean marked to keep its class, any bean when the creator optimizes,
 * and any bean when it proxies classes unless its definition names the interfaces to expose, gets a
 * subclass; otherwise a bean gets a JDK proxy of all its interfaces when one of them is more than a
 * callback or marker. A JDK proxy reaches a {@code final} method through the interface method it
 * implements, which a subclass could not override.
 */
final class InterfaceProxies {
  private InterfaceProxies() {}

  /**
   * The interfaces of bean {@code name}'s JDK proxy; empty when Spring will subclass {@code type}
   * (or when no Spring auto-proxy creator is registered, to be safe).
   */
  static List<Class<?>> of(ConfigurableListableBeanFactory factory, String name, Class<?> type) {
    if (Proxy.isProxyClass(type) || ClassUtils.isLambdaClass(type)) {
      return List.of(type.getInterfaces()); // Spring proxies a JDK proxy or a lambda by interface
    }
    if (!factory.containsBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
        || !(factory.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
            instanceof ProxyConfig creator)
        || creator.isOptimize() // then Spring subclasses every class
        || AutoProxyUtils.shouldProxyTargetClass(factory, name)) {
      return List.of();
    }
    Class<?>[] exposed = exposedInterfaces(factory, name);
    if (exposed != null && exposed.length > 0) {
      return List.of(exposed);
    }
    if (exposed == null && creator.isProxyTargetClass()) {
      return List.of();
    }
    ProxyFactory proxy = new ProxyFactory();
    new InterfaceEvaluation().evaluate(type, factory.getBeanClassLoader(), proxy);
    return proxy.isProxyTargetClass() ? List.of() : List.of(proxy.getProxiedInterfaces());
  }

  /**
   * Whether a call of an instance method of one of the interfaces reaches {@code method} on a
   * {@code type} bean, found as the advisor finds the method it locks (the most specific one, a
   * bridge resolved): a JDK proxy of them intercepts it.
   */
  static boolean reaches(List<Class<?>> interfaces, Class<?> type, Method method) {
    for (Class<?> declaring : interfaces) {
      for (Method declared : declaring.getMethods()) {
        if (!Modifier.isStatic(declared.getModifiers())
            && declared.getName().equals(method.getName())
            && AopUtils.getMostSpecificMethod(declared, type).equals(method)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The definition's {@link AutoProxyUtils#EXPOSED_INTERFACES_ATTRIBUTE}, as Spring reads it. */
  private static Class<?> @Nullable [] exposedInterfaces(
      ConfigurableListableBeanFactory factory, String name) {
    if (!factory.containsBeanDefinition(name)) {
      return null;
    }
    Object interfaces =
        factory.getBeanDefinition(name).getAttribute(AutoProxyUtils.EXPOSED_INTERFACES_ATTRIBUTE);
    if (interfaces instanceof Class<?>[] several) {
      return several;
    }
    return interfaces instanceof Class<?> one ? new Class<?>[] {one} : null;
  }

  /** Spring's own rule for which interfaces count, reached through its protected method. */
  private static final class InterfaceEvaluation extends ProxyProcessorSupport {
    private static final long serialVersionUID = 1L;

    void evaluate(Class<?> type, @Nullable ClassLoader loader, ProxyFactory proxy) {
      if (loader != null) {
        setBeanClassLoader(loader); // as the auto-proxy creator has the factory's
      }
      evaluateProxyInterfaces(type, proxy);
    }
  }
}
