package dev.locksmith.spel;

import static dev.locksmith.spel.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import java.time.DayOfWeek;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.expression.Operation;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.spel.support.MapAccessor;

/**
 * SpEL keys through the engine, the language found on the class path with no wiring. The engine's
 * own key rules (array keys, null and empty values) are tested once, in core's {@code
 * KeyEvaluationTest}: a single-variable key such as {@code #ids} is read straight from the argument
 * there and here alike, so SpEL adds nothing to them.
 */
class SpelKeysTest {
  private final Locksmith locksmith =
      Locksmith.builder().defaultProvider(MemoryLockProvider.isolated()).build();

  @AfterEach
  void close() {
    locksmith.close();
  }

  static class Accounts {
    @DistributedLock(key = "#accountId")
    String byName(String accountId, long cents) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "acct", key = "#p0 + '/' + #a1")
    String byIndex(String accountId, long cents) {
      return Locks.current().lockId();
    }

    @DistributedLock(
        name = "root",
        key = "#root.methodName + '-' + #root.args.length + '-' + #root.targetClass.simpleName")
    String byRoot(String a, String b) {
      return Locks.current().lockId();
    }

    @DistributedLock(key = "#order.customer().toUpperCase()")
    String nested(Order order) {
      return Locks.current().key();
    }

    @DistributedLock(name = "fallback", key = "'acct-' + (#id ?: 'none')")
    String withFallback(String id) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "sum", key = "#a + #b")
    String sum(int a, int b) {
      return Locks.current().lockId();
    }
  }

  record Order(String customer) {}

  static class Concatenations {
    @DistributedLock(name = "order", key = "#order.customer() + '/' + #day")
    String byOrder(Order order, String day) {
      return Locks.current().lockId();
    }
  }

  /** An order whose customer counts its reads. */
  public static final class CountedOrder {
    final AtomicInteger reads = new AtomicInteger();

    public String customer() {
      reads.incrementAndGet();
      return "acme";
    }
  }

  static class CountedConcatenation {
    @DistributedLock(name = "order", key = "#order.customer() + '/' + #day")
    String byOrder(CountedOrder order, String day) {
      return Locks.current().lockId();
    }
  }

  static class UpperCased {
    @DistributedLock(name = "upper", key = "('acct-' + #id).toUpperCase()")
    String byId(String id) {
      return Locks.current().lockId();
    }
  }

  static class Carts {
    @DistributedLock(name = "cart", key = "'cart-' + (#subtotal + #discount)")
    String byTotal(Integer subtotal, Integer discount) {
      return Locks.current().lockId();
    }
  }

  static class UnparsableKey {
    @DistributedLock(key = "#id +")
    void run(String id) {}
  }

  static class UnknownParameter {
    @DistributedLock(key = "#acountId")
    void transfer(String accountId, long cents) {}
  }

  static class MisspeltProperty {
    @DistributedLock(key = "#order.custmer")
    void run(Order order) {}
  }

  static class MisspeltMethodFurtherOn {
    @DistributedLock(key = "'o-' + #p0.customer().toUpperCas()")
    void run(Order order) {}
  }

  static class WrongArgumentCount {
    @DistributedLock(key = "#order.customer(1)")
    void run(Order order) {}
  }

  /** A type whose subclasses may have any property: not checked at validation. */
  interface Item {}

  /** A final class with a public field and a getter. */
  static final class Parcel {
    public final String code = "p-1";

    public int getWeight() {
      return 3;
    }
  }

  static class ReadableKeys {
    @DistributedLock(key = "#order.customer + #order.customer() + #order.customer.length()")
    void record(Order order) {}

    @DistributedLock(key = "#parcel.code + #parcel.weight + #parcel.getWeight() + #parcel.class")
    void finalClass(Parcel parcel) {}

    @DistributedLock(key = "#item.anything + #ids.length + #text.bytes + #day.name()")
    void notFinalArraysAndJdkTypes(Item item, String[] ids, String text, DayOfWeek day) {}

    @DistributedLock(key = "#name.formatted('x', 'y')")
    void varargs(String name) {}

    @DistributedLock(key = "#customer?.toUpperCase() + #order?.customer")
    void unwrappedOptionals(Optional<String> customer, Optional<Order> order) {}

    @DistributedLock(key = "#type.valueOf('MONDAY').name() + #type.values().length")
    void staticMembersOfAClassValue(Class<DayOfWeek> type) {}
  }

  static class Beans {
    @DistributedLock(name = "tenant", key = "@tenants.current() + ':' + #id")
    String byBean(String id) {
      return Locks.current().lockId();
    }
  }

  static class BeanFallback {
    @DistributedLock(name = "tenant", key = "(#tenant ?: @tenants.current()) + ':' + #id")
    String byTenant(String tenant, String id) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "mail", key = "'user@' + #id")
    String byMail(String id) {
      return Locks.current().lockId();
    }
  }

  /** A bean that a key reaches through the context's bean resolver. */
  public static final class Tenants {
    /** The current tenant. */
    public String current() {
      return "acme";
    }
  }

  @Test
  void theLanguageIsFoundOnTheClassPath() throws Exception {
    assertThat(call(locksmith, new Accounts(), "byName", "acct-7", 10L))
        .isEqualTo("Accounts.byName:acct-7");
  }

  @Test
  void indexedParametersAndExplicitName() throws Exception {
    assertThat(call(locksmith, new Accounts(), "byIndex", "acct-7", 10L))
        .isEqualTo("acct:acct-7/10");
  }

  @Test
  void expressionsAreSpelNotConcatenation() throws Exception {
    assertThat(call(locksmith, new Accounts(), "sum", 2, 3)).isEqualTo("sum:5");
  }

  @Test
  void rootObjectGivesMethodArgsAndTargetClass() throws Exception {
    assertThat(call(locksmith, new Accounts(), "byRoot", "x", "y"))
        .isEqualTo("root:byRoot-2-Accounts");
  }

  @Test
  void expressionCanNavigateArguments() throws Exception {
    assertThat(call(locksmith, new Accounts(), "nested", new Order("acme"))).isEqualTo("ACME");
  }

  @Test
  void failingExpressionIsReportedWithTheMethod() {
    assertThatThrownBy(() -> call(locksmith, new Accounts(), "nested", (Object) null))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining(
            "Accounts.nested(Order): key expression '#order.customer().toUpperCase()' failed");
  }

  @Test
  void aNullConcatenatedIntoAKeyIsAKeyErrorNotTheTextNull() throws Exception {
    // SpEL writes null as 'null' in a concatenation: every call without an id shared the lock
    // 'acct:acct-null'.
    assertThatThrownBy(() -> call(locksmith, new BeanFallback(), "byMail", (Object) null))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("BeanFallback.byMail(String): key expression ''user@' + #id'")
        .hasMessageContaining("#id is null");
    assertThatThrownBy(
            () -> call(locksmith, new Concatenations(), "byOrder", new Order(null), "monday"))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("#order.customer() is null");
    assertThat(call(locksmith, new BeanFallback(), "byMail", "7")).isEqualTo("mail:user@7");
    assertThat(call(locksmith, new Concatenations(), "byOrder", new Order("acme"), "monday"))
        .isEqualTo("order:acme/monday");
    assertThat(call(locksmith, new Accounts(), "withFallback", (Object) null))
        .as("a null the expression itself replaces")
        .isEqualTo("fallback:acct-none");
  }

  @Test
  void aKeyWithoutTheTextNullReadsEachConcatenatedGetterOnce() throws Exception {
    // The null check read every concatenated getter a second time on every call.
    CountedOrder order = new CountedOrder();
    assertThat(call(locksmith, new CountedConcatenation(), "byOrder", order, "monday"))
        .isEqualTo("order:acme/monday");
    assertThat(order.reads).hasValue(1);
  }

  @Test
  void aNullConcatenatedInsideACallIsStillAKeyError() {
    // The key shows it as NULL, not null: only a top-level concatenation is judged by its text.
    assertThatThrownBy(() -> call(locksmith, new UpperCased(), "byId", (Object) null))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("#id is null");
  }

  @Test
  void unparsableKeyNamesTheExpression() {
    assertThatThrownBy(() -> locksmith.validate(UnparsableKey.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("UnparsableKey.run(String), attribute key: '#id +'")
        .hasMessageContaining("is not a valid SpEL expression");
  }

  @Test
  void unknownParameterListsTheRealOnes() {
    assertThatThrownBy(() -> locksmith.validate(UnknownParameter.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.spel.SpelKeysTest$UnknownParameter"
                + ".transfer(String, long), attribute key: '#acountId' refers to #acountId, which"
                + " is not a parameter; parameters are [accountId, cents] (or #p0..#p1 /"
                + " #a0..#a1)");
  }

  @Test
  void aPropertyTheParametersFinalTypeLacksIsRefusedAtValidation() {
    assertThatThrownBy(() -> locksmith.validate(MisspeltProperty.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.spel.SpelKeysTest$MisspeltProperty.run(Order),"
                + " attribute key: '#order.custmer' reads property custmer of #order, whose type"
                + " dev.locksmith.spel.SpelKeysTest$Order has none (no getCustmer(), isCustmer(),"
                + " custmer() or public field custmer)");
    assertThatThrownBy(() -> locksmith.validate(MisspeltMethodFurtherOn.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("MisspeltMethodFurtherOn.run(Order), attribute key:")
        .hasMessageContaining(
            "reads method toUpperCas with 0 argument(s) of #p0.customer(), whose type"
                + " java.lang.String has none");
    assertThatThrownBy(() -> locksmith.validate(WrongArgumentCount.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("reads method customer with 1 argument(s) of #order");
  }

  @Test
  void whatTheDeclaredTypesCanReadOrCannotTellPassesValidation() throws Exception {
    assertThat(locksmith.validate(ReadableKeys.class)).isEqualTo(6);
    assertThat(
            call(
                locksmith,
                new ReadableKeys(),
                "unwrappedOptionals",
                Optional.of("acme"),
                Optional.of(new Order("x"))))
        .isNull();
    assertThat(call(locksmith, new ReadableKeys(), "staticMembersOfAClassValue", DayOfWeek.class))
        .isNull();
    assertThat(call(locksmith, new ReadableKeys(), "finalClass", new Parcel())).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"added", "replaced"})
  void aContextWithPropertyAccessorsOfItsOwnIsNotCheckedByType(String how) {
    try (Locksmith custom =
        Locksmith.builder()
            .keyLanguage(
                SpelKeyLanguage.withContext(
                    context -> {
                      if (how.equals("added")) {
                        context.addPropertyAccessor(new MapAccessor());
                      } else {
                        context.setPropertyAccessors(List.of(new MapAccessor()));
                      }
                    }))
            .defaultProvider(MemoryLockProvider.isolated())
            .build()) {
      assertThat(custom.validate(MisspeltProperty.class)).isEqualTo(1);
    }
  }

  @Test
  void aNullAnOperatorOverloaderAddsAwayIsStillAKeyError() {
    // Such an overloader can leave no 'null' in the key: the text is then no proof of none.
    OperatorOverloader ignoresNull =
        new OperatorOverloader() {
          @Override
          public boolean overridesOperation(
              Operation operation, @Nullable Object left, @Nullable Object right) {
            return operation == Operation.ADD && right == null;
          }

          @Override
          public @Nullable Object operate(
              Operation operation, @Nullable Object left, @Nullable Object right) {
            return left;
          }
        };
    try (Locksmith custom =
        Locksmith.builder()
            .keyLanguage(SpelKeyLanguage.withContext(c -> c.setOperatorOverloader(ignoresNull)))
            .defaultProvider(MemoryLockProvider.isolated())
            .build()) {
      assertThatThrownBy(() -> call(custom, new Carts(), "byTotal", 10, null))
          .isInstanceOf(LockKeyException.class)
          .hasMessageContaining("#discount is null");
    }
  }

  @Test
  void customisedContextResolvesBeans() throws Exception {
    Tenants tenants = new Tenants();
    try (Locksmith withBeans =
        Locksmith.builder()
            .defaultProvider(MemoryLockProvider.isolated())
            .keyLanguage(
                SpelKeyLanguage.withContext(
                    context ->
                        context.setBeanResolver(
                            (ctx, name) -> {
                              if (!name.equals("tenants")) {
                                throw new IllegalArgumentException("no bean " + name);
                              }
                              return tenants;
                            })))
            .build()) {
      assertThat(call(withBeans, new Beans(), "byBean", "7")).isEqualTo("tenant:acme:7");
    }
  }

  @Test
  void aBeanReferenceWithoutABeanResolverIsRefusedAtValidation() {
    // Micronaut, AspectJ and a plain engine have no bean resolver: every call failed.
    assertThatThrownBy(() -> locksmith.validate(Beans.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Beans.byBean(String), attribute key")
        .hasMessageContaining("@tenants")
        .hasMessageContaining("no bean resolver");
    // A bean only in a branch that a call may not take, or an @ in a string, is no reference.
    assertThat(locksmith.validate(BeanFallback.class)).isEqualTo(2);
  }
}
