// The dependency rules of architecture.md hold for every source file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/include_rules.h"

namespace fs = std::filesystem;
using sinkscope::test::include_violations;

TEST(IncludeRules, AnalysisMayNotIncludeQtTorchOrVtk) {
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include <QString>\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include <QtCore/QObject>\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "  #  include <torch/torch.h>\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include <ATen/Tensor.h>\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include <vtkRenderer.h>\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include \"render/colormap.h\"\n").size(), 1u);
  EXPECT_TRUE(include_violations("analysis/a.cpp",
                                 "#include <vector>\n#include <Eigen/Dense>\n#include "
                                 "<boost/graph/adjacency_list.hpp>\n#include \"analysis/x.h\"\n")
                  .empty());
}

TEST(IncludeRules, ModelsKeepTorchOutOfHeadersAndQtOut) {
  EXPECT_TRUE(include_violations("models/run.cpp", "#include <torch/torch.h>\n").empty());
  EXPECT_EQ(include_violations("models/run.h", "#include <torch/torch.h>\n").size(), 1u);
  EXPECT_EQ(include_violations("models/run.cpp", "#include <QJsonDocument>\n").size(), 1u);
  EXPECT_EQ(include_violations("models/run.cpp", "#include <qcustomplot.h>\n").size(), 1u);
  EXPECT_TRUE(include_violations("models/internal/w.h", "#include <ATen/ATen.h>\n").empty());
  EXPECT_EQ(include_violations("ui/x.cpp", "#include \"models/internal/w.h\"\n").size(), 1u);
}

TEST(IncludeRules, TheDocumentLayerStandsOnPublicHeadersOnly) {
  EXPECT_EQ(include_violations("models/document/d.cpp", "#include <ATen/ATen.h>\n").size(), 1u);
  EXPECT_EQ(
      include_violations("models/document/d.cpp", "#include \"models/internal/w.h\"\n").size(), 1u);
  EXPECT_EQ(include_violations("models/document/d.cpp", "#include <QObject>\n").size(), 1u);
  EXPECT_TRUE(include_violations("models/document/d.cpp",
                                 "#include \"models/model.h\"\n#include \"analysis/sinks.h\"\n")
                  .empty());
  EXPECT_EQ(include_violations("models/model.cpp", "#include \"models/document/d.h\"\n").size(),
            1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include \"models/document/d.h\"\n").size(), 1u);
  EXPECT_TRUE(include_violations("ui/w.cpp", "#include \"models/document/d.h\"\n").empty());
  // models/io/ stands on analysis/ alone; render/ writes its CSV through it.
  EXPECT_TRUE(include_violations("render/e.cpp", "#include \"models/io/table_io.h\"\n").empty());
  EXPECT_EQ(include_violations("render/e.cpp", "#include \"models/model.h\"\n").size(), 1u);
  EXPECT_EQ(include_violations("analysis/a.cpp", "#include \"models/io/npz.h\"\n").size(), 1u);
  EXPECT_EQ(include_violations("models/io/t.cpp", "#include \"models/model.h\"\n").size(), 1u);
  EXPECT_TRUE(include_violations("models/io/t.cpp", "#include \"analysis/sinks.h\"\n").empty());
}

TEST(IncludeRules, ViewDescriptionsArePlainDataEveryDrawerReads) {
  EXPECT_TRUE(
      include_violations("render/v.cpp", "#include \"models/views/line_plot.h\"\n").empty());
  EXPECT_TRUE(include_violations("models/document/d.cpp", "#include \"models/views/line_plot.h\"\n")
                  .empty());
  EXPECT_TRUE(
      include_violations("models/views/v.h", "#include \"models/io/table_io.h\"\n").empty());
  EXPECT_EQ(include_violations("models/views/v.h", "#include <QString>\n").size(), 1u);
  EXPECT_EQ(include_violations("models/views/v.h", "#include \"models/document/d.h\"\n").size(),
            1u);
  EXPECT_EQ(include_violations("models/views/v.h", "#include \"render/x.h\"\n").size(), 1u);
  EXPECT_EQ(include_violations("models/io/t.h", "#include \"models/views/v.h\"\n").size(), 1u);
}

TEST(IncludeRules, TorchStaysInsideModels) {
  for (const char* path : {"ui/w.cpp", "render/v.cpp", "app/main.cpp", "tests/t.cpp"})
    EXPECT_EQ(include_violations(path, "#include <c10/util/Half.h>\n").size(), 1u) << path;
  EXPECT_TRUE(
      include_violations("ui/w.cpp", "#include <QWidget>\n#include \"models/x.h\"\n").empty());
}

TEST(IncludeRules, ReportsFileAndLine) {
  const auto v = include_violations("analysis/a.cpp", "// x\n#include <QString>\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], "analysis/a.cpp:2: includes a Qt header <QString>");
}

TEST(Layering, EverySourceFileFollowsTheRules) {
  const fs::path root = SINKSCOPE_SOURCE_DIR;
  int checked = 0;
  std::vector<std::string> violations;
  for (const char* room : {"analysis", "models", "render", "ui", "app", "tests"}) {
    ASSERT_TRUE(fs::is_directory(root / room)) << (root / room);
    for (const auto& entry : fs::recursive_directory_iterator(root / room)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".hpp")) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string relative = fs::relative(entry.path(), root).generic_string();
      for (auto& v : include_violations(relative, text.str())) violations.push_back(v);
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
  for (const auto& v : violations) ADD_FAILURE() << v;
}
