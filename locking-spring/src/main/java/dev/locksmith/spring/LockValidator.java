package dev.locksmith.spring;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.Proxies;
import dev.locksmith.core.internal.Signatures;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @DistributedLock} on every bean once all singletons exist, so that a bad key
 * expression, duration or provider name stops the context at start-up with a message naming the
 * bean, the method and the attribute. A bean made later (lazy, prototype or of another scope) whose
 * class was not known at start-up (a {@code @Bean} method that returns an interface) is checked
 * when it is made, which then fails.
 */
final class LockValidator
    implements SmartInitializingSingleton, BeanFactoryAware, BeanPostProcessor, PriorityOrdered {
  private static final Logger LOG = LoggerFactory.getLogger(LockValidator.class);

  private final LockingMode mode;
  private @Nullable ConfigurableListableBeanFactory beanFactory;
  // The classes looked at: checked, or found without @DistributedLock.
  private final Set<Class<?>> looked = ConcurrentHashMap.newKeySet();
  // The @DistributedLock methods of each class a bean was made of; most have none.
  private final Map<Class<?>, List<Method>> lockedMethods = new ConcurrentHashMap<>();
  // The locked methods of each such class that no subclass proxy can intercept; most have none.
  private final Map<Class<?>, List<Method>> notInterceptable = new ConcurrentHashMap<>();
  private volatile boolean started;

  LockValidator(LockingMode mode) {
    this.mode = mode;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    ConfigurableListableBeanFactory factory = Objects.requireNonNull(beanFactory);
    int methods = 0;
    int classes = 0;
    for (String name : factory.getBeanNamesForType(Object.class, true, false)) {
      Class<?> type = AnnotatedBeans.targetClass(factory, name);
      if (type == null || AnnotatedBeans.annotatedMethods(type) == 0) {
        continue;
      }
      try {
        if (looked.add(type)) {
          methods += check(factory, name, type);
          classes++;
        } else {
          dependOnEngine(factory, name);
        }
        if (mode == LockingMode.PROXY) {
          refuseUnproxyable(factory, name, type);
          refuseUnadvised(factory, name, type);
        }
      } catch (LockConfigurationException e) {
        throw named(name, type, e);
      }
    }
    started = true;
    LOG.debug("Validated {} @DistributedLock methods on {} bean classes", methods, classes);
  }

  /**
   * Refuses a locked init or destroy callback before Spring runs the first one, and checks a bean
   * made after start-up, before it is initialised and proxied: its class may not have been known
   * then.
   */
  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    Class<?> type = ClassUtils.getUserClass(bean);
    ConfigurableListableBeanFactory factory = Objects.requireNonNull(beanFactory);
    try {
      if (mode == LockingMode.PROXY) {
        refuseLockedCallbacks(factory, beanName, type, lockedMethods(type));
      }
      if (started && !looked.contains(type)) {
        if (AnnotatedBeans.annotatedMethods(type) > 0) {
          check(factory, beanName, type);
        }
        looked.add(type);
      }
      if (started && mode == LockingMode.PROXY) {
        refuseUnproxyable(factory, beanName, type); // how Spring proxies it is the bean's own
      }
    } catch (LockConfigurationException e) {
      throw named(beanName, type, e);
    }
    return bean;
  }

  /**
   * Before Spring's own processors, so that a locked {@code @PostConstruct} is refused before it
   * runs.
   */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  private List<Method> notInterceptable(Class<?> type) {
    return notInterceptable.computeIfAbsent(type, t -> methodsOrNone(Proxies::notInterceptable, t));
  }

  private List<Method> lockedMethods(Class<?> type) {
    return lockedMethods.computeIfAbsent(type, t -> methodsOrNone(AnnotatedMethods::of, t));
  }

  /** The methods {@code find} finds, or none when a method of the class names a missing class. */
  private static List<Method> methodsOrNone(Function<Class<?>, List<Method>> find, Class<?> type) {
    try {
      return find.apply(type);
    } catch (LinkageError e) {
      return List.of();
    }
  }

  /** Checks the locked methods of {@code type}, the class of bean {@code name}; how many. */
  private int check(ConfigurableListableBeanFactory factory, String name, Class<?> type) {
    Locksmith locksmith = factory.getBean(Locksmith.class);
    dependOnEngine(factory, name);
    int methods = locksmith.validateForInvoke(type);
    if (mode == LockingMode.PROXY) {
      refuseWoven(type);
    } else {
      AspectJBinder binder = factory.getBeanProvider(AspectJBinder.class).getIfAvailable();
      if (binder != null) {
        binder.checkWoven(type);
      }
    }
    return methods;
  }

  /**
   * The interceptor finds the engine at the first call, which records no dependency: without one,
   * Spring destroys the engine before a bean whose destroy method makes a locked call.
   */
  private static void dependOnEngine(ConfigurableListableBeanFactory factory, String name) {
    if (!factory.containsBeanDefinition(name) || !factory.isSingleton(name)) {
      return;
    }
    for (String engineName : factory.getBeanNamesForType(Locksmith.class, false, false)) {
      factory.registerDependentBean(engineName, name);
    }
  }

  private static LockConfigurationException named(
      String name, Class<?> type, LockConfigurationException e) {
    return new LockConfigurationException(
        "Bean '" + name + "' (" + type.getName() + "): " + e.getMessage(), e);
  }

  /**
   * A singleton of an annotated class that Spring created without its proxy (created before the
   * auto-proxy creator, because a {@code BeanPostProcessor} needed it), or that was registered as a
   * ready-made instance ({@code registerSingleton}), which Spring never wraps, would run every
   * locked method unlocked. An instance of another class registered under the bean's name, a
   * ready-made instance of a subclass of the class that declares the locked methods, or a Mockito
   * mock or spy (test doubles) is left alone: it was put there on purpose.
   */
  private static void refuseUnadvised(
      ConfigurableListableBeanFactory factory, String name, Class<?> type) {
    if (factory.isFactoryBean(name) || !factory.containsSingleton(name)) {
      return;
    }
    Object bean = factory.getSingleton(name);
    if (bean == null || isLockAdvised(bean)) {
      return;
    }
    Method locked = AnnotatedBeans.firstLocked(type);
    boolean readyMade = !factory.containsBeanDefinition(name);
    Class<?> expected = readyMade ? locked.getDeclaringClass() : type;
    if (ClassUtils.getUserClass(bean) != expected || isMockitoDouble(bean)) {
      LOG.debug("Bean '{}' is a {}, not an advised {}: not checked", name, bean.getClass(), type);
      return;
    }
    throw new LockConfigurationException(
        "@DistributedLock on "
            + Signatures.of(locked)
            + " would run without a lock: "
            + (readyMade
                ? "the bean is an instance registered as it is (registerSingleton), which Spring"
                    + " never wraps in a proxy; declare it as a bean instead (@Component, @Bean or"
                    + " registerBean)"
                : "the bean was created before Spring's auto-proxy creator could wrap it (a"
                    + " BeanFactoryPostProcessor or BeanPostProcessor needs it, directly or"
                    + " through a non-static @Bean method of its @Configuration class; Spring logs"
                    + " that it 'is not eligible for getting processed by all"
                    + " BeanPostProcessors'); make that @Bean method static, or move the locked"
                    + " methods to a bean of their own"));
  }

  /**
   * Whether the bean is a Mockito mock or spy, a test double of the class itself: Mockito's default
   * mock maker makes no subclass.
   */
  private static boolean isMockitoDouble(Object bean) {
    ClassLoader loader = bean.getClass().getClassLoader();
    if (!ClassUtils.isPresent("org.mockito.Mockito", loader)) {
      return false;
    }
    try {
      Object details =
          ClassUtils.forName("org.mockito.Mockito", loader)
              .getMethod("mockingDetails", Object.class)
              .invoke(null, bean);
      return Boolean.TRUE.equals(
          ClassUtils.forName("org.mockito.MockingDetails", loader)
              .getMethod("isMock")
              .invoke(details));
    } catch (ReflectiveOperationException | LinkageError e) {
      LOG.debug(
          "Could not ask Mockito whether bean {} is a mock: {}", bean.getClass(), e.toString());
      return false;
    }
  }

  /** The annotations that make a method an init or destroy callback. */
  private static final Set<String> CALLBACK_ANNOTATIONS =
      Set.of(
          "jakarta.annotation.PostConstruct",
          "jakarta.annotation.PreDestroy",
          "javax.annotation.PostConstruct",
          "javax.annotation.PreDestroy");

  /**
   * Spring calls a bean's init and destroy callbacks on the bean itself, not through its proxy: a
   * locked one would run unlocked (a start-up migration meant to run on one node ran on all).
   */
  private static void refuseLockedCallbacks(
      ConfigurableListableBeanFactory factory, String name, Class<?> type, List<Method> locked) {
    if (locked.isEmpty()) {
      return;
    }
    Set<String> named = new HashSet<>();
    if (InitializingBean.class.isAssignableFrom(type)) {
      named.add("afterPropertiesSet");
    }
    if (DisposableBean.class.isAssignableFrom(type)) {
      named.add("destroy");
    }
    if (factory.containsBeanDefinition(name)
        && factory.getMergedBeanDefinition(name) instanceof AbstractBeanDefinition definition) {
      String[] inits = definition.getInitMethodNames();
      String[] destroys = definition.getDestroyMethodNames();
      named.addAll(Arrays.asList(inits == null ? new String[0] : inits));
      named.addAll(Arrays.asList(destroys == null ? new String[0] : destroys));
    }
    for (Method method : locked) {
      boolean annotated =
          Arrays.stream(method.getAnnotations())
              .anyMatch(a -> CALLBACK_ANNOTATIONS.contains(a.annotationType().getName()));
      if (method.getParameterCount() == 0 && (annotated || named.contains(method.getName()))) {
        throw new LockConfigurationException(
            "@DistributedLock on "
                + Signatures.of(method)
                + " would run without a lock: Spring calls it as the bean's init or destroy"
                + " callback on the bean itself, not through the proxy that takes the lock; call"
                + " it from an ApplicationRunner or an @EventListener(ApplicationReadyEvent.class)"
                + " method of another bean, or use locksmith.mode=aspectj with the woven aspect");
      }
    }
  }

  private static boolean isLockAdvised(Object bean) {
    return bean instanceof Advised advised
        && Arrays.stream(advised.getAdvisors()).anyMatch(LockAdvisor.class::isInstance);
  }

  /**
   * A class the aspect wove would be locked twice in proxy mode: by the proxy through this engine,
   * then in its woven body through the aspect's own, built from system settings alone (which either
   * has no provider or finds the lock held by the proxy).
   */
  private static void refuseWoven(Class<?> type) {
    WovenClasses.firstWovenMethod(type)
        .ifPresent(
            method -> {
              throw new LockConfigurationException(
                  "@DistributedLock on "
                      + Signatures.of(method)
                      + " is woven with the locking-aspectj aspect, and in proxy mode Spring's"
                      + " proxy locks it too: the woven body would take the lock a second time,"
                      + " through the aspect's own engine, built from system settings alone; set"
                      + " locksmith.mode=aspectj (@EnableDistributedLocking(mode ="
                      + " LockingMode.ASPECTJ)), or build the class without the aspect");
            });
  }

  /**
   * A proxy cannot intercept private, static or final methods: they would run unlocked. A JDK
   * interface proxy reaches a final method through the interface method it implements.
   */
  private void refuseUnproxyable(
      ConfigurableListableBeanFactory factory, String name, Class<?> type) {
    List<Method> notInterceptable = notInterceptable(type);
    if (notInterceptable.isEmpty()) {
      return;
    }
    List<Class<?>> interfaces = InterfaceProxies.of(factory, name, type);
    List<Method> unproxyable =
        notInterceptable.stream()
            .filter(method -> !InterfaceProxies.reaches(interfaces, type, method))
            .toList();
    if (!unproxyable.isEmpty()) {
      Method method = unproxyable.get(0);
      throw new LockConfigurationException(
          "@DistributedLock on "
              + Signatures.of(method)
              + " would run without a lock: it is "
              + Proxies.whyNot(type, method)
              + ", and a Spring proxy cannot intercept a method that is "
              + Proxies.NOT_INTERCEPTABLE
              + "; make it public (or protected) and not final, or use"
              + " locksmith.mode=aspectj with the woven aspect");
    }
  }
}
