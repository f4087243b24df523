# bindings/install/install.sh's steps for C#, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
	# A project as NuGet 2.8 and xbuild know it: packages.config, app.csproj
	# referencing the restored package's .dll, Prog.cs; Prog checks that it
	# runs the copy xbuild put beside it, and the check below that this copy
	# and the restored package are the ones make built.
	cat > packages.config <<'EOF'
<packages>
  <package id="RdmaVerbs" version="1.4.0" targetFramework="net45" />
</packages>
EOF
	cat > app.csproj <<'EOF'
<?xml version="1.0" encoding="utf-8"?>
<Project ToolsVersion="4.0" DefaultTargets="Build" xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <AssemblyName>Prog</AssemblyName>
    <TargetFrameworkVersion>v4.5</TargetFrameworkVersion>
    <OutputPath>bin</OutputPath>
  </PropertyGroup>
  <ItemGroup>
    <Reference Include="System" />
    <Reference Include="RdmaVerbs">
      <HintPath>packages/RdmaVerbs.1.4.0/lib/net45/RdmaVerbs.dll</HintPath>
    </Reference>
  </ItemGroup>
  <ItemGroup>
    <Compile Include="Prog.cs" />
  </ItemGroup>
  <Import Project="$(MSBuildToolsPath)/Microsoft.CSharp.targets" />
</Project>
EOF
	cat > Prog.cs <<'EOF'
using System;
using System.IO;
using RdmaVerbs;

static class Prog
{
    static int Main()
    {
        string dll = typeof(Rdma).Assembly.Location;
        Console.WriteLine("csharp: " + dll);
        if (dll != Path.Combine(Environment.CurrentDirectory, "bin", "RdmaVerbs.dll"))
            return 1;
        if (Rdma.rdma_seterrno(0) != 0 || Rdma.ibv_wc_status_str(Rdma.IBV_WC_LOC_PROT_ERR) != "local protection error")
            return 1;
        Console.WriteLine("csharp: Prog ran with the package's RdmaVerbs.dll");
        return 0;
    }
}
EOF
	check='cmp packages/RdmaVerbs.1.4.0/RdmaVerbs.1.4.0.nupkg "$CHECKOUT/build/bindings/nuget/RdmaVerbs.1.4.0.nupkg"
cmp bin/RdmaVerbs.dll "$CHECKOUT/build/bindings/RdmaVerbs.dll"
echo "csharp: restored: the .nupkg make built; bin/RdmaVerbs.dll its .dll"
echo "csharp: installed: ok"'
