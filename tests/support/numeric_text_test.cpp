// The comparison the golden outputs use: text and whole numbers exactly, other
// numbers within the stated tolerance.
#include "support/numeric_text.h"
#include "support/golden_compare.h"

#include <gtest/gtest.h>

using sinkscope::testing::compare_numeric_text;
using sinkscope::testing::NumericTolerance;

namespace {
const NumericTolerance kTol{1e-4, 1e-7};

bool agree(const std::string& a, const std::string& b) {
  return compare_numeric_text(a, b, kTol).difference.empty();
}
}  // namespace

TEST(NumericText, FloatsAgreeWithinTheTolerance) {
  EXPECT_TRUE(agree("a,0.04610153191115799\n", "a,0.04610154379087211\n"));
  EXPECT_TRUE(agree("x,1\n", "x,0.99999994\n"));  // a float written shortest: 1 vs 1 - 2^-24
  EXPECT_TRUE(agree("0,1e-09\n", "0,-3e-09\n"));  // below the absolute tolerance
  EXPECT_TRUE(agree("{\"a\":\"0x1.3111d06a78153p-3\"}\n", "{\"a\":\"0x1.3111d06a78154p-3\"}\n"));
  EXPECT_TRUE(agree("v,-.5\n", "v,-0.50000001\n"));
  const auto r = compare_numeric_text("1.5,2\n", "1.50001,2\n", kTol);
  EXPECT_EQ(r.inexactNumbers, 1);
  EXPECT_NEAR(r.largestAbsolute, 1e-5, 1e-12);
  EXPECT_NEAR(r.largestRelative, 1e-5 / 1.50001, 1e-12);
}

TEST(NumericText, FloatsBeyondTheToleranceDiffer) {
  EXPECT_FALSE(agree("a,0.5\n", "a,0.5001\n"));
  EXPECT_FALSE(agree("a,1e-3\n", "a,1.2e-3\n"));
  EXPECT_FALSE(agree("a,0.5\n", "a,-0.5\n"));
  EXPECT_FALSE(agree("a,0.5\n", "a,nan\n"));  // a number became text
  EXPECT_FALSE(agree("a,0.5\n", "a,\n"));
  const auto r = compare_numeric_text("h\nrow,0.25,7\n", "h\nrow,0.26,7\n", kTol);
  EXPECT_NE(r.difference.find("line 2"), std::string::npos) << r.difference;
  EXPECT_NE(r.difference.find("0.25 became 0.26"), std::string::npos) << r.difference;
}

TEST(NumericText, WholeNumbersAndTextMustBeEqual) {
  EXPECT_FALSE(agree("bars_h1,290\n", "bars_h1,291\n"));
  EXPECT_FALSE(agree("{\"b0\":\"0x1.8p+3\"}\n", "{\"b0\":\"0x1.6p+3\"}\n"));  // 12 vs 11
  EXPECT_FALSE(agree("0,Mixer\n", "0,Reset\n"));
  EXPECT_FALSE(agree("a\n", "a\nb\n"));
  EXPECT_FALSE(agree("a\n", "a"));  // the end of line matters
  EXPECT_FALSE(agree("1,2\n", "1,2,3\n"));
  EXPECT_TRUE(agree("L3H2,step-500\n", "L3H2,step-500\n"));
  EXPECT_TRUE(agree("-0,0\n", "0,-0\n"));  // equal values
}

// Files compared by their structure: random-baseline columns and rows get
// their own tolerance, everything else the float32 one.
namespace {
using sinkscope::testing::compare_golden_file;
using sinkscope::testing::GoldenRules;
const GoldenRules kRules{{1e-4, 1e-5}, {0.0, 1.0 / 64}, {"random_f_mean", "fr", "f_n_random"}};

std::string golden_difference(const std::string& name, const std::string& a, const std::string& b) {
  return compare_golden_file(name, a, b, kRules).difference;
}
}  // namespace

TEST(GoldenCompare, CsvCellsByColumn) {
  const std::string head = "# tool: x\nlayer,head,f,random_f_mean,token\n";
  EXPECT_EQ(golden_difference("t.csv", head + "0,1,0.5,0.70,\"a, b\"\n",
                              head + "0,1,0.50001,0.71,\"a, b\"\n"),
            "");
  // The random baseline may move by up to 1/64, other floats only by rounding.
  EXPECT_NE(golden_difference("t.csv", head + "0,1,0.5,0.70,x\n", head + "0,1,0.5,0.72,x\n"), "");
  EXPECT_NE(golden_difference("t.csv", head + "0,1,0.5,0.70,x\n", head + "0,1,0.51,0.70,x\n"), "");
  EXPECT_NE(golden_difference("t.csv", head + "0,1,0.5,0.70,x\n", head + "0,2,0.5,0.70,x\n"), "");
  EXPECT_NE(golden_difference("t.csv", head + "0,1,0.5,0.70,x\n", head + "0,1,0.5,0.70,y\n"), "");
  EXPECT_NE(golden_difference("t.csv", head + "0,1,0.5,0.70,x\n",
                              "# tool: y\nlayer,head,f,random_f_mean,token\n0,1,0.5,0.70,x\n"),
            "");
  const auto moved =
      compare_golden_file("t.csv", head + "0,1,0.5,0.70,x\n", head + "0,1,0.5,0.71,x\n", kRules);
  EXPECT_EQ(moved.randomBaselineMoves, 1);
}

TEST(GoldenCompare, LongTablesByTheirRowLabel) {
  const std::string head = "layer,metric,mean\n";
  EXPECT_EQ(
      golden_difference("p.csv", head + "0,f_n_random,0.5267\n", head + "0,f_n_random,0.5277\n"),
      "");
  EXPECT_NE(golden_difference("p.csv", head + "0,f_n,0.5267\n", head + "0,f_n,0.5277\n"), "");
}

TEST(GoldenCompare, JsonTablesKeysAndLines) {
  const std::string a =
      R"({"tables": {"v": {"columns": ["f", "random_f_mean"], "rows": [[0.5, 0.7]]}}, "n": 3})";
  EXPECT_EQ(
      golden_difference(
          "a.json", a,
          R"({"tables": {"v": {"columns": ["f", "random_f_mean"], "rows": [[0.50001, 0.71]]}}, "n": 3})"),
      "");
  EXPECT_NE(
      golden_difference(
          "a.json", a,
          R"({"tables": {"v": {"columns": ["f", "random_f_mean"], "rows": [[0.51, 0.7]]}}, "n": 3})"),
      "");
  EXPECT_NE(
      golden_difference(
          "a.json", a,
          R"({"tables": {"v": {"columns": ["f", "random_f_mean"], "rows": [[0.5, 0.7]]}}, "n": 4})"),
      "");
  EXPECT_NE(
      golden_difference(
          "a.json", a,
          R"({"n": 3, "tables": {"v": {"columns": ["f", "random_f_mean"], "rows": [[0.5, 0.7]]}}})"),
      "")
      << "key order is part of the format";
  const std::string line = R"({"fr":["0x1.6da318663b8adp-1"],"f":["0x1p-1"],"b0":["0x1.8p+3"]})";
  EXPECT_EQ(
      golden_difference("r.jsonl", line + "\n",
                        R"({"fr":["0x1.6d6eb5aa083cp-1"],"f":["0x1.00001p-1"],"b0":["0x1.8p+3"]})"
                        "\n"),
      "");
  EXPECT_NE(
      golden_difference("r.jsonl", line + "\n",
                        R"({"fr":["0x1.6da318663b8adp-1"],"f":["0x1.1p-1"],"b0":["0x1.8p+3"]})"
                        "\n"),
      "");
  EXPECT_NE(golden_difference("r.jsonl", line + "\n",
                              R"({"fr":["0x1.6da318663b8adp-1"],"f":["0x1p-1"],"b0":["0x1.6p+3"]})"
                              "\n"),
            "");
}
