package dev.locksmith.spel;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardOperatorOverloader;

/**
 * The arguments a key concatenates ({@code #id} in {@code 'acct-' + #id}, {@code #order.customer()}
 * in {@code #order.customer() + '/' + #day}), checked after each evaluation: SpEL writes a null
 * there as the text {@code null}, which would make every call without the value share one lock.
 * Only operands that every evaluation reaches and that read an argument (a variable, then
 * properties or argument-less methods) are checked; a null the expression replaces itself ({@code
 * #id ?: 'none'}) is not one. When every such operand is part of the key's own top-level
 * concatenation, a null one shows in the key as that text, so a key without {@code null} in it is
 * taken as it is, and no operand is read a second time.
 */
final class ConcatenatedOperands {
  private static final ConcatenatedOperands NONE = new ConcatenatedOperands(List.of(), true);

  /**
   * One operand: its text for messages, an expression that reads it on its own, and whether it is
   * concatenated into the key's result itself (not into an argument or a receiver of a call).
   */
  private record Operand(String text, Expression reader, boolean inResult) {}

  private final List<Operand> operands;
  private final boolean allInResult;

  private ConcatenatedOperands(List<Operand> operands, boolean allInResult) {
    this.operands = operands;
    this.allInResult = allInResult;
  }

  static ConcatenatedOperands of(SpelExpression parsed, SpelExpressionParser parser) {
    List<Operand> found = new ArrayList<>();
    collect(parsed.getAST(), parser, true, found);
    return found.isEmpty()
        ? NONE
        : new ConcatenatedOperands(List.copyOf(found), found.stream().allMatch(Operand::inResult));
  }

  /** {@code inResult}: the node's value is the key's, or concatenated into it. */
  private static void collect(
      SpelNode node, SpelExpressionParser parser, boolean inResult, List<Operand> into) {
    boolean concatenation = node instanceof OpPlus && node.getChildCount() == 2;
    if (concatenation) {
      for (int i = 0; i < 2; i++) {
        SpelNode operand = node.getChild(i);
        if (readsAnArgument(operand)) {
          String text = operand.toStringAST();
          try {
            into.add(new Operand(text, parser.parseExpression(text), inResult));
          } catch (ParseException e) {
            // Not written back as parseable text: left unchecked.
          }
        }
      }
    }
    for (int i = 0; i < SpelKeyLanguage.childrenAlwaysEvaluated(node); i++) {
      collect(node.getChild(i), parser, inResult && concatenation, into);
    }
  }

  /** A variable other than {@code #root} and {@code #this}, then properties or plain getters. */
  private static boolean readsAnArgument(SpelNode operand) {
    SpelNode first = operand instanceof CompoundExpression ? operand.getChild(0) : operand;
    if (!(first instanceof VariableReference)
        || first.toStringAST().equals("#root")
        || first.toStringAST().equals("#this")) {
      return false;
    }
    for (int i = 1; operand instanceof CompoundExpression && i < operand.getChildCount(); i++) {
      SpelNode step = operand.getChild(i);
      boolean getter = step instanceof MethodReference && step.getChildCount() == 0;
      if (!(step instanceof PropertyOrFieldReference) && !getter) {
        return false;
      }
    }
    return true;
  }

  /**
   * Throws when a concatenated argument is null in this evaluation, whose key is {@code key}.
   *
   * @throws IllegalArgumentException naming the operand; the engine reports it as a key error
   */
  void checkNotNull(EvaluationContext context, @Nullable Object key) {
    if (operands.isEmpty()
        || (allInResult
            && context.getOperatorOverloader().getClass() == StandardOperatorOverloader.class
            && key instanceof String text
            && !text.contains("null"))) {
      // A null concatenated into the key shows in it as the text null, unless an overloaded +
      // of the context's own took it away.
      return;
    }
    for (Operand operand : operands) {
      Object value;
      try {
        value = operand.reader().getValue(context);
      } catch (RuntimeException e) {
        continue; // the whole expression evaluated: this one is not for this call to judge
      }
      if (value == null) {
        throw new IllegalArgumentException(
            operand.text()
                + " is null, and a concatenation would write it as the text 'null', one lock for"
                + " every such call; pass a value, or say in the expression what a missing one"
                + " locks ("
                + operand.text()
                + " ?: 'none')");
      }
    }
  }
}
